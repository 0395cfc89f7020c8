"""Teaching commands: `flinklab grade`, `flinklab class-report`, `flinklab new-course`.

Thin: parse options, call the use case (flinklab.usecases.grade / classreport / newcourse), render.
"""
# typer reads these annotations at runtime, and Python 3.9 cannot evaluate `X | None` there.
# ruff: noqa: UP006, UP035, UP045

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, List, Optional

import typer
from rich.markup import escape

from flinklab.cli.app import command, console, err_console, settings_from
from flinklab.course.registry import get_lab
from flinklab.errors import ExitStatus, UsageError

DATA_DIR_HELP = "Where the lab's CSVs are; default $FLINKLAB_DATA_DIR or /opt/lab/fixtures/data."
FORMAT_NAMES = "gradescope, prairielearn, junit, json, codegrade"


@command("grade")
def grade_command(
    lab: Annotated[str, typer.Argument(help="The lab to grade (see `flinklab labs`).")],
    submission: Annotated[Path, typer.Argument(help="The folder holding the learner's ddl.sql and step files.")],
    results: Annotated[Optional[Path], typer.Option(
        "--results", metavar="FILE", help="Write the results there (default: print them).")] = None,
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help=f"One of: {FORMAT_NAMES}.")] = "json",
    step_timeout: Annotated[float, typer.Option(
        "--step-timeout", metavar="S", help="Cancel a step (and its Flink job) after S seconds.")] = 60.0,
    rest_url: Annotated[Optional[str], typer.Option(
        "--rest-url", metavar="URL", help="Run on this cluster (default: the running one, else a local one "
        "started for the run and stopped after).")] = None,
    learner: Annotated[Optional[str], typer.Option(
        "--learner", metavar="NAME", help="The learner's name in the results (default: the folder's name).")] = None,
    keep: Annotated[Optional[Path], typer.Option(
        "--keep", metavar="DIR", help="Copy the private workspace the grader read (outputs, plans, report.json) "
        "to DIR, a new directory.")] = None,
    data_dir: Annotated[Optional[Path], typer.Option("--data-dir", help=DATA_DIR_HELP)] = None,
) -> None:
    """Rerun a learner's SQL in a private workspace and grade it. Exit 0 graded (whatever the score), 2 not
    gradable."""
    from flinklab.grading.formats import FORMATS, render_result, write_result
    from flinklab.usecases.grade import grade_submission

    if fmt not in FORMATS:
        raise UsageError(f"Unknown --format {fmt!r}.", f"Choose one of: {FORMAT_NAMES}.")
    if step_timeout <= 0:
        raise UsageError(f"--step-timeout {step_timeout:g}: give a number of seconds above 0.",
                         "E.g. --step-timeout 60.")
    if keep is not None and keep.exists():
        raise UsageError(f"--keep {keep} exists.", "Give a new directory.")
    settings = settings_from(data_dir=data_dir)
    the_lab = get_lab(lab)
    result = grade_submission(settings, the_lab, submission, step_timeout=step_timeout, rest_url=rest_url,
                              learner=learner or "", keep=keep,
                              progress=lambda message: err_console.print(f"[dim]{escape(message)}[/]"))
    if results is not None:
        write_result(result, fmt, results)
        err_console.print(f"Wrote {results}", soft_wrap=True)
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(render_result(result, fmt))
        sys.stdout.flush()
    if results is not None or fmt != "codegrade":  # a CodeGrade log on stdout has the summary line already
        err_console.print(escape(result.summary()), soft_wrap=True)
    raise typer.Exit(int(ExitStatus.SUCCESS if result.gradable else ExitStatus.ERROR))


@command("class-report")
def class_report_command(
    results: Annotated[List[Path], typer.Argument(help="The results files of a class (any format `grade` writes).")],
    html: Annotated[Optional[Path], typer.Option("--html", metavar="FILE", help="Also write a self-contained "
                                                 "HTML page.")] = None,
    csv_file: Annotated[Optional[Path], typer.Option("--csv", metavar="FILE", help="Also write one row per "
                                                     "learner as CSV.")] = None,
) -> None:
    """What a class struggles with: each learner's score, each step's pass rate, the checks most often failed."""
    from flinklab.usecases.classreport import build_class_report, render_text, write_csv, write_html

    report = build_class_report(results)
    render_text(report, console)
    if html is not None:
        write_html(report, html)
        console.print(f"Wrote {escape(str(html))}", soft_wrap=True)
    if csv_file is not None:
        write_csv(report, csv_file)
        console.print(f"Wrote {escape(str(csv_file))}", soft_wrap=True)


@command("new-course")
def new_course_command(
    directory: Annotated[Path, typer.Argument(help="Where to write the course (a new or empty directory).")],
    lab: Annotated[str, typer.Option("--lab", metavar="LAB", help="The lab the learners do.")],
    image: Annotated[str, typer.Option("--image", metavar="TAG", help="The grader image the CI runs.")] = "",
) -> None:
    """Write a learner's starting repository (empty step files, the guide, a CI workflow running the grader image)
    and a teacher's README."""
    from flinklab.usecases.newcourse import write_course

    written = write_course(directory, get_lab(lab), image=image or None)
    for path in written:
        console.print(escape(str(path)), soft_wrap=True)
    console.print(f"Next: read {escape(str(directory / 'TEACHER.md'))}.", soft_wrap=True)
