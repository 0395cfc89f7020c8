"""Show a GradeReport: a rich table for people, Gradescope-style JSON and JUnit XML for machines."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from flinklab.errors import UsageError
from flinklab.files import write_atomic
from flinklab.grading.results import CheckResult, GradeReport


def _points(value: float) -> str:
    return f"{value:g}"


def failure_text(result: CheckResult) -> str:
    """What a failed check says: the message, then the hint."""
    parts = [result.message.strip()] if result.message.strip() else []
    if result.hint.strip():
        parts.append(f"hint: {result.hint.strip()}")
    return "\n".join(parts)


#: what a failed check shows in the terminal instead of the message or hint the step's failure above it showed
SAME_AS_ABOVE = "(same as above)"
HINT_AS_ABOVE = "hint: as above"


HINT_AT_THE_TOP = "hint: as at the top"


#: how many steps must fail with one hint for the terminal to say it once, above the table (two say it twice)
SHARED_BY_STEPS = 3


def shared_hint(report: GradeReport) -> tuple[str, list[str]] | None:
    """The hint that failures of several steps (SHARED_BY_STEPS or more) give alike (one cause outside every step's
    file, e.g. a table definition all of them read), with those steps in order; None when no hint is shared so (the
    most steps win)."""
    steps_of: dict[str, list[str]] = {}
    for result in report.failures:
        hint = result.hint.strip()
        if hint and result.step and result.step not in steps_of.setdefault(hint, []):
            steps_of[hint].append(result.step)
    best = max(steps_of.items(), key=lambda item: len(item[1]), default=None)
    return best if best is not None and len(best[1]) >= SHARED_BY_STEPS else None


def _failure_detail(result: CheckResult, above: tuple[str, str] | None, at_top: str = "") -> Text:
    """A failed check's message and hint under its name; a part the step's previous failure (`above`: its message
    and hint) showed already is said once: a step whose output is missing or broken fails every check alike. A
    hint the summary above the table gave (`at_top`) is not repeated either."""
    message, hint = result.message.strip(), result.hint.strip()
    detail = Text()
    if above is not None and (message, hint) == above:
        detail.append("\n" + SAME_AS_ABOVE, style="dim")
        return detail
    if message:
        detail.append("\n" + message, style="red")
    if hint and hint == at_top:
        detail.append("\n" + HINT_AT_THE_TOP, style="dim")
    elif hint and above is not None and hint == above[1]:
        detail.append("\n" + HINT_AS_ABOVE, style="dim")
    elif hint:
        detail.append("\nhint: " + hint, style="yellow")
    return detail


def render_report(report: GradeReport, console: Console) -> None:
    """A table of checks (a failure's message and hint under it, each said once per step in a row), then
    `Points X/Y`; above it, the one hint the failures of several steps share (`shared_hint`), said once. The JSON,
    JUnit and HTML reports keep every failure's whole message and hint."""
    shared = shared_hint(report)
    if shared is not None:
        hint, steps = shared
        failing = list(dict.fromkeys(r.step for r in report.failures if r.step))
        who = "Every failing step" if steps == failing else f"{len(steps)} steps"
        line = Text(f"{who} ({', '.join(steps)}) failed for the same reason: ", style="bold")
        line.append(f"hint: {hint}", style="yellow")
        console.print(line)
    at_top = shared[0] if shared is not None else ""
    table = Table(title=f"flinklab check {report.lab}", title_justify="left", show_lines=False, expand=False)
    table.add_column("check", overflow="fold")
    table.add_column("step", style="dim")
    table.add_column("points", justify="right")
    table.add_column("result", justify="center")
    above: tuple[str, str] | None = None  # the row above's (message, hint), when it is a failure of the same step
    for i, result in enumerate(report.results):
        previous = report.results[i - 1] if i else None
        if previous is None or previous.passed or not result.step or previous.step != result.step:
            above = None
        label = Text(result.name)
        if not result.passed:
            label.append_text(_failure_detail(result, above, at_top))
            above = (result.message.strip(), result.hint.strip())
        verdict = "[bold green]PASS[/]" if result.passed else "[bold red]FAIL[/]"
        table.add_row(
            label, escape(result.step), f"{_points(result.score)}/{_points(result.points)}", verdict
        )
    console.print(table)
    n = len(report.results)
    if report.all_passed:
        console.print(f"[bold green]All {n} checks passed.[/]")
    elif n:
        console.print(f"[bold red]{len(report.failures)} of {n} checks failed.[/]")
    else:
        console.print("[bold red]The lab defined no checks.[/]")
    console.print(f"[bold]Points {_points(report.score)}/{_points(report.max_score)}[/]")


def report_json(report: GradeReport) -> dict:
    """Gradescope's results.json shape: score, max_score, output and one entry per check."""
    tests = [
        {
            "name": r.name,
            "status": "passed" if r.passed else "failed",
            "score": r.score,
            "max_score": r.points,
            "output": "" if r.passed else failure_text(r),
            **({"tags": [r.step]} if r.step else {}),
        }
        for r in report.results
    ]
    summary = (
        f"All {len(report.results)} checks passed."
        if report.all_passed
        else f"{len(report.failures)} of {len(report.results)} checks failed."
    )
    return {
        "score": report.score,
        "max_score": report.max_score,
        "output": f"{summary} Points {_points(report.score)}/{_points(report.max_score)}",
        "tests": tests,
    }


def report_junit(report: GradeReport) -> ET.ElementTree:
    """One testsuite, one testcase per check; a failure's message is the check's message + hint."""
    suite = ET.Element(
        "testsuite",
        name=f"flinklab.{report.lab}",
        tests=str(len(report.results)),
        failures=str(len(report.failures)),
        errors="0",
        skipped="0",
    )
    for r in report.results:
        case = ET.SubElement(suite, "testcase", name=r.name, classname=f"{report.lab}.{r.step or 'lab'}")
        if not r.passed:
            text = failure_text(r)
            failure = ET.SubElement(
                case, "failure", message=text.splitlines()[0] if text else "failed", type="CheckFailed"
            )
            failure.text = text
    root = ET.Element("testsuites", tests=str(len(report.results)), failures=str(len(report.failures)))
    root.append(suite)
    ET.indent(root)
    return ET.ElementTree(root)


def _resolved(path: Path) -> Path:
    try:
        return path.expanduser().resolve()
    except (OSError, RuntimeError):  # a symlink loop: compare it as written
        return path.expanduser().absolute()


def _suffix(option: str) -> str:
    """The file ending an example in a hint uses: `--junit` -> .xml, `--html` -> .html, else .json."""
    return {"--junit": ".xml", "--html": ".html"}.get(option, ".json")


def refuse_lab_files(outputs: Mapping[str, Path | None], lab_files: Iterable[Path]) -> None:
    """Before grading: UsageError when an output option (`--json FILE`, ...) names a file the lab reads or the
    learner writes (report.json, an output, a SQL file, a plan, a lab CSV), or a directory. Grading results never
    replace the learner's work; other existing files are backed up when written (see :func:`write_output`)."""
    protected = {_resolved(p): p for p in lab_files}
    for option, path in outputs.items():
        if path is None:
            continue
        owner = protected.get(_resolved(path))
        if owner is not None:
            raise UsageError(
                f"{option} {path} would overwrite {owner}, a file of the lab that the grader reads.",
                f"Write the grading result to a file of its own, e.g. {option} {path.parent / 'grade'}"
                f"{_suffix(option)}.",
            )
        if path.is_dir():
            raise UsageError(f"{option} {path} is a directory.", f"Give a file name, e.g. {option} {path / 'grade'}"
                             f"{_suffix(option)}.")


def _written_by_flinklab(path: Path) -> bool:
    """A previous grading result (JSON or JUnit written here), which is simply replaced."""
    from flinklab.grading.files import FileReadError, read_text

    try:
        text = read_text(path, limit=64 << 20)
    except FileReadError:
        return False
    return ('"max_score"' in text and '"tests"' in text) or ("<testsuites" in text and 'name="flinklab.' in text)


def write_output(path: Path, data: bytes) -> Path | None:
    """Write a grading result whole (via a temporary name, so no half-written file is left); an existing file
    that is not a previous grading result is first copied to `FILE.bak-TIMESTAMP`, which is returned."""
    from flinklab.grading.files import backup_path

    backup = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_file() and not _written_by_flinklab(path):
            backup = backup_path(path)
            shutil.copy2(path, backup)
        write_atomic(path, data)
    except OSError as exc:
        raise UsageError(f"Cannot write {path}: {exc.strerror or exc}.", "Choose a writable path.") from None
    return backup


def write_json(report: GradeReport, path: Path) -> Path | None:
    """Gradescope-style JSON to `path`; the backup of a file that was there (see :func:`write_output`)."""
    return write_output(path, (json.dumps(report_json(report), indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def write_junit(report: GradeReport, path: Path) -> Path | None:
    """JUnit XML to `path`; the backup of a file that was there (see :func:`write_output`)."""
    root = report_junit(report).getroot()
    return write_output(path, ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n")
