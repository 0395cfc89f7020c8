"""`flinklab class-report RESULTS...`: what a class struggles with, from the results files `flinklab grade` wrote.

Each learner's score, each step's pass rate (the share of gradable learners who passed every check of the step) and
the checks most often failed with their most frequent hint, as a rich table, one self-contained HTML page (inline
CSS and SVG, no script, nothing fetched) and a CSV with one row per learner.
"""

from __future__ import annotations

import csv
import html
import io
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from flinklab.errors import UsageError
from flinklab.files import write_atomic
from flinklab.grading.formats import GradeResult, read_results


@dataclass
class FailedCheck:
    """A check the class failed: how many learners, and the hint most of them got."""

    name: str
    step: str
    learners: int
    hint: str
    message: str  # one learner's message, as an example of what was found


@dataclass
class ClassReport:
    lab: str
    results: list[GradeResult]
    files: list[Path]
    step_pass: dict[str, tuple[int, int]] = field(default_factory=dict)  # step -> (passed, gradable learners)
    failed: list[FailedCheck] = field(default_factory=list)

    @property
    def gradable(self) -> list[GradeResult]:
        return [r for r in self.results if r.gradable]

    @property
    def mean_percent(self) -> float:
        graded = self.gradable
        return 100.0 * sum(r.fraction for r in graded) / len(graded) if graded else 0.0


def build_class_report(paths: list[Path]) -> ClassReport:
    """Read every results file (UsageError naming one that is not a results file) and summarise the class."""
    if not paths:
        raise UsageError("No results files given.", "E.g. `flinklab class-report results/*/results.json`.")
    results = read_results(list(paths))
    labs = sorted({r.lab for r in results if r.lab})
    report = ClassReport(lab=", ".join(labs), results=results, files=list(paths))
    step_order: dict[str, None] = {}
    passed: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    fails: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for result in report.gradable:
        steps: dict[str, bool] = {}
        for check in result.checks:
            step = check.step or "lab"
            step_order.setdefault(step)
            steps[step] = steps.get(step, True) and check.passed
            if not check.passed:
                fails[(check.name, check.step)].append((check.hint, check.message))
        for step, ok in steps.items():
            seen[step] += 1
            passed[step] += ok
    report.step_pass = {step: (passed[step], seen[step]) for step in step_order}
    for (name, step), found in fails.items():
        hint = Counter(h for h, _ in found).most_common(1)[0][0]
        message = next((m for h, m in found if h == hint), "")
        report.failed.append(FailedCheck(name, step, len(found), hint, message))
    report.failed.sort(key=lambda f: (-f.learners, f.name))
    return report


def render_text(report: ClassReport, console: Console) -> None:
    """The three tables: learners, steps, the checks most often failed."""
    learners = Table(title=f"class report: {report.lab or 'results'} ({len(report.results)} learners)",
                     title_justify="left")
    for column in ("learner", "score", "%", "failed checks"):
        learners.add_column(column, overflow="fold")
    for result in sorted(report.results, key=lambda r: r.learner):
        if result.gradable:
            learners.add_row(escape(result.learner), f"{result.score:g}/{result.max_score:g}",
                             f"{100 * result.fraction:.0f}", str(len(result.failures)))
        else:
            learners.add_row(escape(result.learner), "not gradable", "", escape(result.message))
    console.print(learners)
    steps = Table(title="steps: learners who passed every check of the step", title_justify="left")
    steps.add_column("step")
    steps.add_column("passed", justify="right")
    for step, (ok, n) in report.step_pass.items():
        steps.add_row(escape(step), f"{ok}/{n} ({100 * ok / n:.0f}%)" if n else "0/0")
    console.print(steps)
    failed = Table(title="the checks most often failed", title_justify="left")
    for column in ("check", "learners", "hint"):
        failed.add_column(column, overflow="fold")
    for item in report.failed[:15]:
        failed.add_row(escape(item.name), str(item.learners), escape(item.hint))
    console.print(failed)
    console.print(f"[bold]mean score {report.mean_percent:.0f}% over {len(report.gradable)} gradable "
                  f"submission(s)[/]")


def write_csv(report: ClassReport, path: Path) -> None:
    """One row per learner: learner, lab, gradable, score, max_score, percent, failed checks (names, `; `)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["learner", "lab", "gradable", "score", "max_score", "percent", "failed_checks", "file"])
    for result, file in zip(report.results, report.files, strict=True):
        writer.writerow([result.learner, result.lab, str(result.gradable).lower(), f"{result.score:g}",
                         f"{result.max_score:g}", f"{100 * result.fraction:.1f}" if result.gradable else "",
                         "; ".join(c.name for c in result.failures) if result.gradable else result.message, file])
    _write(path, buffer.getvalue())


def _write(path: Path, text: str) -> None:
    try:
        write_atomic(path, text, mkdir=True)
    except OSError as exc:
        raise UsageError(f"Cannot write {path}: {exc.strerror or exc}.", "Choose a writable path.") from None


_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #1d232a; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .35em .6em;
  border-bottom: 1px solid #dde2e8; vertical-align: top; } th { background: #f2f4f7; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.bar { display: block; height: 100%; background: #3b7dd8; border-radius: 2px; }
.track { display: inline-block; width: 160px; height: .8em; background: #e5e9ef; border-radius: 2px; margin-right: .5em;
  vertical-align: middle; }
.low .bar { background: #d8553b; } .mid .bar { background: #e0a030; }
.muted { color: #66707c; } .hint { color: #6a4b00; } .ng { color: #a33; }
"""


def _bar(fraction: float) -> str:
    level = "low" if fraction < 0.5 else "mid" if fraction < 0.8 else ""
    return (f'<span class="track {level}"><span class="bar" style="width:{160 * max(0.0, min(1.0, fraction)):.0f}px">'
            "</span></span>")


def render_html(report: ClassReport) -> str:
    """The page: a self-contained HTML document."""
    e = html.escape
    rows = []
    for result in sorted(report.results, key=lambda r: r.learner):
        if result.gradable:
            rows.append(f"<tr><td>{e(result.learner)}</td><td class=num>{result.score:g}/{result.max_score:g}</td>"
                        f"<td>{_bar(result.fraction)}{100 * result.fraction:.0f}%</td>"
                        f"<td>{e(', '.join(c.name for c in result.failures)) or '—'}</td></tr>")
        else:
            rows.append(f"<tr><td>{e(result.learner)}</td><td class=num>—</td><td class=ng>not gradable</td>"
                        f"<td class=ng>{e(result.message)}</td></tr>")
    steps = "".join(
        f"<tr><td>{e(step)}</td><td>{_bar(ok / n if n else 0)}{ok}/{n}</td></tr>"
        for step, (ok, n) in report.step_pass.items())
    failed = "".join(
        f"<tr><td>{e(item.name)}<div class=muted>{e(item.message)}</div></td><td class=num>{item.learners}</td>"
        f"<td class=hint>{e(item.hint)}</td></tr>" for item in report.failed[:50])
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Class report: {e(report.lab)}</title>
<style>{_CSS}</style></head><body>
<h1>Class report: {e(report.lab or 'results')}</h1>
<p class=muted>{len(report.results)} submissions, {len(report.gradable)} gradable; mean score
{report.mean_percent:.0f}%.</p>
<h2>What the class struggles with: the checks most often failed</h2>
<table><tr><th>check (an example of what was found)</th><th>learners</th><th>the hint they got</th></tr>
{failed or '<tr><td colspan=3>No check failed.</td></tr>'}</table>
<h2>Steps: learners who passed every check of the step</h2>
<table><tr><th>step</th><th>passed</th></tr>{steps}</table>
<h2>Learners</h2>
<table><tr><th>learner</th><th>score</th><th>%</th><th>failed checks</th></tr>{''.join(rows)}</table>
</body></html>
"""


def write_html(report: ClassReport, path: Path) -> None:
    """Write the page to `path`."""
    _write(path, render_html(report))
