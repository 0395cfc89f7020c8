"""Show a GradeReport: a rich table for people, Gradescope-style JSON and JUnit XML for machines."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from flinklab.errors import UsageError
from flinklab.grading.checks import CheckResult, GradeReport


def _points(value: float) -> str:
    return f"{value:g}"


def failure_text(result: CheckResult) -> str:
    """What a failed check says: the message, then the hint."""
    parts = [result.message.strip()] if result.message.strip() else []
    if result.hint.strip():
        parts.append(f"hint: {result.hint.strip()}")
    return "\n".join(parts)


def render_report(report: GradeReport, console: Console) -> None:
    """A table of checks (a failure's message and hint under it), then `Points X/Y`."""
    table = Table(title=f"flinklab check {report.lab}", title_justify="left", show_lines=False, expand=False)
    table.add_column("check", overflow="fold")
    table.add_column("step", style="dim")
    table.add_column("points", justify="right")
    table.add_column("result", justify="center")
    for result in report.results:
        label = Text(result.name)
        if not result.passed:
            detail = Text()
            if result.message.strip():
                detail.append("\n" + result.message.strip(), style="red")
            if result.hint.strip():
                detail.append("\nhint: " + result.hint.strip(), style="yellow")
            label.append_text(detail)
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


def _write(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:
        raise UsageError(f"Cannot write {path}: {exc.strerror or exc}.", "Choose a writable path.") from None


def write_json(report: GradeReport, path: Path) -> None:
    _write(path, (json.dumps(report_json(report), indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def write_junit(report: GradeReport, path: Path) -> None:
    root = report_junit(report).getroot()
    _write(path, ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n")
