"""`flinklab check LAB --html FILE`: one self-contained HTML page (inline CSS and SVG; no script, font or image
from anywhere) with the score, the failed steps first (their checks, hints and pictures: the windows they got
against the expected ones, the plans they compiled), then every check with its points.

Which pictures a failed step has, the lab says (`Lab.pictures.step`); a lab that draws nothing gets the page without
pictures. A picture that cannot be drawn becomes a note on the page, never a failed report.
"""

from __future__ import annotations

import html
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from flinklab.errors import FlinklabError, UsageError
from flinklab.grading.context import GradingContext
from flinklab.grading.results import CheckResult, GradeReport
from flinklab.lab_api import Lab
from flinklab.pictures.picture import Picture


def step_pictures(lab: Lab | None, ctx: GradingContext, step: str) -> list[Picture]:
    """The step's pictures; a picture that cannot be drawn is a note instead."""
    builder = lab.pictures.step if lab is not None else None
    if builder is None:
        return []
    try:
        return builder(ctx, step)
    except FlinklabError as exc:
        return [Picture("none", f"{step}: no picture", "", notes=[exc.message])]
    except Exception as exc:  # noqa: BLE001 - a picture must never cost the learner the report; say why instead
        return [Picture("none", f"{step}: no picture", "",
                        notes=[f"the picture could not be drawn ({type(exc).__name__}: {exc}); this is a bug"])]


CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",DejaVu Sans,sans-serif;margin:24px;color:#1d1d1f;
background:#fafafa;max-width:1600px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:18px;margin:28px 0 8px} h3{font-size:16px;margin:0 0 8px}
.score{font-size:16px;font-weight:600} .ok{color:#1a7f37} .bad{color:#c62828} .muted{color:#666}
.step{background:#fff;border:1px solid #e0e0e0;border-left:5px solid #c62828;border-radius:6px;padding:14px 16px;
margin:14px 0}
.check{margin:6px 0 10px} .check .name{font-weight:600} .message{margin:4px 0;color:#b71c1c;white-space:pre-wrap}
.hint{margin:4px 0;color:#6d4c00;background:#fff8e1;padding:4px 8px;border-radius:4px;white-space:pre-wrap}
figure{margin:12px 0;overflow-x:auto;background:#fff;border:1px solid #eee;padding:6px}
figure svg{max-width:100%;height:auto} figcaption{font-size:13px;color:#444;margin:4px 0 6px}
ul.differences{font-family:DejaVu Sans Mono,Menlo,Consolas,monospace;font-size:12px;margin:4px 0}
table{border-collapse:collapse;background:#fff;width:100%} td,th{border-bottom:1px solid #eee;padding:5px 8px;
text-align:left;vertical-align:top;font-size:14px} td.points{text-align:right;white-space:nowrap}
tr.fail td.result{color:#c62828;font-weight:700} tr.pass td.result{color:#1a7f37;font-weight:700}
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _points(value: float) -> str:
    return f"{value:g}"


def _check_item(result: CheckResult) -> str:
    parts = [f'<li class="check failed" data-check="{_e(result.name)}"><span class="name">{_e(result.name)}</span>'
             f' <span class="muted">{_points(result.score)}/{_points(result.points)} points</span>']
    if result.message.strip():
        parts.append(f'<p class="message">{_e(result.message.strip())}</p>')
    if result.hint.strip():
        parts.append(f'<p class="hint">hint: {_e(result.hint.strip())}</p>')
    return "".join(parts) + "</li>"


def _picture(picture: Picture) -> str:
    out = [f'<figure class="picture" data-picture="{_e(picture.kind)}"><figcaption>{_e(picture.caption)}'
           "</figcaption>"]
    if picture.svg:
        out.append(picture.svg)
    for note in picture.notes:
        out.append(f'<p class="muted note">{_e(note)}</p>')
    if picture.lines:
        out.append(f"<details open><summary>{len(picture.lines)} {_e(picture.lines_title)}</summary>"
                   '<ul class="differences">')
        out += [f"<li>{_e(line)}</li>" for line in picture.lines]
        out.append("</ul></details>")
    return "".join(out) + "</figure>"


def _failed_steps(report: GradeReport, pictures: Callable[[str], list[Picture]]) -> str:
    steps: dict[str, list[CheckResult]] = {}
    for result in report.failures:
        steps.setdefault(result.step or "lab", []).append(result)
    if not steps:
        return '<section id="failed-steps"><h2 class="ok">Every check passed.</h2></section>'
    out = [f'<section id="failed-steps"><h2>Failed steps ({len(steps)})</h2>']
    for step, results in steps.items():
        out.append(f'<article class="step" id="step-{_e(step)}" data-step="{_e(step)}"><h3>{_e(step)}</h3>'
                   f'<ul class="checks">{"".join(_check_item(r) for r in results)}</ul>')
        out += [_picture(p) for p in pictures(step)]
        out.append("</article>")
    return "".join(out) + "</section>"


def _all_checks(report: GradeReport) -> str:
    rows = []
    for r in report.results:
        verdict = "PASS" if r.passed else "FAIL"
        rows.append(f'<tr class="{verdict.lower()}"><td>{_e(r.name)}</td><td class="muted">{_e(r.step)}</td>'
                    f'<td class="points">{_points(r.score)}/{_points(r.points)}</td>'
                    f'<td class="result">{verdict}</td></tr>')
    return ('<section id="checks"><h2>All checks</h2><table><thead><tr><th>check</th><th>step</th>'
            f'<th>points</th><th>result</th></tr></thead><tbody>{"".join(rows)}</tbody></table></section>')


def html_report(report: GradeReport, ctx: GradingContext | None = None, lab: Lab | None = None) -> str:
    """The page's HTML; with `ctx` and the `lab`, the failed steps carry the pictures the lab draws."""
    def pictures(step: str) -> list[Picture]:
        return step_pictures(lab, ctx, step) if ctx is not None else []

    n = len(report.results)
    summary = (f'<span class="ok">All {n} checks passed.</span>' if report.all_passed
               else f'<span class="bad">{len(report.failures)} of {n} checks failed.</span>')
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>flinklab check {_e(report.lab)}</title><style>{CSS}</style></head><body>"
        f"<header><h1>flinklab check {_e(report.lab)}</h1>"
        f'<p class="score" id="score" data-score="{_points(report.score)}" data-max="{_points(report.max_score)}">'
        f"Points {_points(report.score)}/{_points(report.max_score)} · {summary}</p>"
        f'<p class="muted">workspace {_e(report.workspace)}</p></header>'
        + _failed_steps(report, pictures) + _all_checks(report) + "</body></html>\n"
    )


def write_html(report: GradeReport, path: Path, ctx: GradingContext | None = None, lab: Lab | None = None) -> Path:
    """Write the page to `path` atomically (a reader never sees half a page); UsageError naming an unwritable path."""
    path = Path(path).expanduser()
    text = html_report(report, ctx, lab)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.chmod(tmp, 0o644)  # mkstemp makes it private; a report is for reading
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError as exc:
        raise UsageError(f"Cannot write {path}: {exc.strerror or exc}.", "Choose a writable path for --html.") from None
    return path
