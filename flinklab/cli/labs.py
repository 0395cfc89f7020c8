"""Lab commands: `flinklab run`, `flinklab check`, `flinklab fixtures generate`, `flinklab labs`.

Thin: parse options, call one use case (flinklab.usecases: run, check, fixtures, newlab), render. Each command imports
what it needs when it runs, so `flinklab check` starts without the runner, the cluster code or Docker.
"""
# typer reads these annotations at runtime, and Python 3.9 cannot evaluate `X | None` there.
# ruff: noqa: UP045

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from flinklab.cli.app import app, command, console, print_error, settings_from
from flinklab.course.path import lab_starts
from flinklab.course.registry import available_labs, get_lab, load_labs
from flinklab.errors import ExitStatus
from flinklab.lab_api import Lab
from flinklab.settings import Settings

fixtures_app = typer.Typer(help="The labs' generated data.", no_args_is_help=True)
app.add_typer(fixtures_app, name="fixtures")

WORKSPACE_HELP = "Workspace root (the lab's files are in ROOT/LAB); default $FLINKLAB_WORKSPACE or ~/flink."
OUTPUT_HELP = ("Never a file of the lab (report.json, an output, a SQL file, a plan: refused); another existing file "
               "is first copied to FILE.bak-TIMESTAMP unless it is an earlier grading result.")
DATA_DIR_HELP = "Where the lab's CSVs are; default $FLINKLAB_DATA_DIR or /opt/lab/fixtures/data."
#: `flinklab run --step-timeout`'s default (flinklab.usecases.run_timeout.DEFAULT_STEP_TIMEOUT; a unit test holds
#: them equal: the CLI does not import the runner to show its help)
DEFAULT_STEP_TIMEOUT = 300.0


@command("run")
def run_command(
    lab: Annotated[str, typer.Argument(help="The lab to run (see `flinklab labs`).")],
    solution: Annotated[
        bool, typer.Option("--solution", help="Install and run the reference SQL (with --only, just that step's file "
                           "and ddl.sql); a file of yours that differs is first moved to FILE.bak-TIMESTAMP.")
    ] = False,
    only: Annotated[Optional[str], typer.Option("--only", metavar="STEP", help="Run just this step.")] = None,
    workspace: Annotated[Optional[Path], typer.Option("--workspace", help=WORKSPACE_HELP)] = None,
    data_dir: Annotated[Optional[Path], typer.Option("--data-dir", help=DATA_DIR_HELP)] = None,
    parallel: Annotated[Optional[int], typer.Option(
        "--parallel", metavar="N", help="Steps run at once, each in its own session (default "
        "$FLINKLAB_RUN_PARALLEL or 3; never more than the cluster's free slots; 1: one at a time).")] = None,
    step_timeout: Annotated[float, typer.Option(
        "--step-timeout", metavar="S", help="Cancel a step still running after S seconds (and its Flink job: a "
        "query over a source that never ends); the other steps go on.")] = DEFAULT_STEP_TIMEOUT,
) -> None:
    """Run a lab's steps like `sql-client.sh -i ddl.sql -f STEP.sql > STEP.out`, then write report.json."""
    from flinklab.cli.run_view import LiveProgress, check_command_line, render_run
    from flinklab.errors import UsageError
    from flinklab.usecases.run import run_planned
    from flinklab.usecases.run_plan import prepare_run

    if not step_timeout > 0:  # also NaN
        raise UsageError(f"--step-timeout {step_timeout:g}: give a number of seconds above 0.",
                         f"E.g. --step-timeout {DEFAULT_STEP_TIMEOUT:g}.")
    settings = settings_from(workspace_root=workspace, data_dir=data_dir, run_parallel=parallel)
    plan = prepare_run(settings, get_lab(lab), solution=solution, only=only, strict=True)
    with LiveProgress(settings, plan.steps, step_timeout) as progress:
        run = run_planned(settings, plan, progress=progress, step_timeout=step_timeout)
    render_run(run, settings, check_command_line(lab, workspace=workspace, data_dir=data_dir))
    raise typer.Exit(int(ExitStatus.SUCCESS if run.ok else ExitStatus.FAILURE))


@command("check")
def check_command(
    lab: Annotated[str, typer.Argument(help="The lab to grade.")],
    json_file: Annotated[
        Optional[Path], typer.Option("--json", metavar="FILE", help="Also write Gradescope-style JSON. " + OUTPUT_HELP)
    ] = None,
    junit_file: Annotated[
        Optional[Path], typer.Option("--junit", metavar="FILE", help="Also write JUnit XML. " + OUTPUT_HELP)
    ] = None,
    html_file: Annotated[
        Optional[Path], typer.Option("--html", metavar="FILE",
                                     help="Also write one self-contained HTML page with pictures of failed steps.")
    ] = None,
    workspace: Annotated[Optional[Path], typer.Option("--workspace", help=WORKSPACE_HELP)] = None,
    data_dir: Annotated[Optional[Path], typer.Option("--data-dir", help=DATA_DIR_HELP)] = None,
) -> None:
    """Grade the saved work (never asks the cluster). Exit 0 all pass, 1 a check failed, 2 could not grade."""
    from flinklab.grading.render import refuse_lab_files, render_report, write_json, write_junit
    from flinklab.usecases.check import grade_lab, grading_context, lab_files, provision_for_grading

    settings = settings_from(workspace_root=workspace, data_dir=data_dir)
    the_lab = get_lab(lab)
    # Never over the learner's work (`--json report.json`): refused before grading; other files are backed up.
    refuse_lab_files({"--json": json_file, "--junit": junit_file, "--html": html_file}, lab_files(settings, the_lab))
    if copied := provision_for_grading(settings, the_lab):
        from flinklab.usecases.provision import provisioned_line

        console.print(escape(provisioned_line(the_lab, settings, copied)), soft_wrap=True)
    report = grade_lab(settings, the_lab)
    render_report(report, console)
    for path, write in ((json_file, write_json), (junit_file, write_junit)):
        if path is not None:
            backup = write(report, path)
            console.print(f"Wrote {path}" + (f" (the file that was there is now {backup.name})" if backup else ""))
    if html_file is not None:
        from flinklab.course.html_report import write_html

        written = write_html(report, html_file, grading_context(settings, the_lab), the_lab)
        console.print(f"Wrote {written}", soft_wrap=True)
    raise typer.Exit(int(ExitStatus.SUCCESS if report.all_passed else ExitStatus.FAILURE))


@command("generate", target=fixtures_app)
def fixtures_generate(
    labs: Annotated[Optional[list[str]], typer.Argument(help="Labs to generate (default: all).")] = None,
    seed: Annotated[
        Optional[int], typer.Option("--seed", help="Random seed (default: each lab's own).")
    ] = None,
    scale: Annotated[
        # no typer `min=1`: its multi-line usage box would pre-empt write_fixtures' one-line error
        int, typer.Option("--scale", help="Multiply the volume (1 or more); every case the lab relies on stays.")
    ] = 1,
    out: Annotated[
        Optional[Path], typer.Option("--out", help=(
            "Output dir. Default: each lab's own data folder inside its installed package (LAB/data/, package "
            "data), which is what `flink-up` provisions into the data dir; in a checkout, the committed CSVs "
            "(fixtures/LAB/)."))
    ] = None,
) -> None:
    """Write the labs' CSVs (deterministic for a seed and scale)."""
    from flinklab.usecases.fixtures import write_fixtures

    for name in labs or available_labs():
        the_lab = get_lab(name)
        for path in write_fixtures(the_lab, out.expanduser() if out is not None else None, seed=seed, scale=scale):
            rows = path.read_bytes().count(b"\n")
            console.print(f"{name}: {path} ({rows} rows)")


def _lab_table(the_lab: Lab) -> Table:
    # File names are never broken (printed to a pipe, at 80 columns, `tumble_agg.ou t` was): their columns do not
    # wrap, the titles take what is left and wrap at spaces, and no vertical rules take the room. How each step
    # runs (`-i ddl.sql -f STEP.sql`) is the note under the table.
    table = Table(title=f"{the_lab.name}: {the_lab.title}", title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("step", no_wrap=True)
    table.add_column("files", no_wrap=True)
    table.add_column("mode", max_width=10)
    table.add_column("title", ratio=1, overflow="fold")
    for step in the_lab.steps:
        files = "\n".join((step.sql_file, *(f"→ {name}" for name in (step.out_file, *step.writes))))
        mode = step.mode + (" (expects an error)" if step.expect_error else "")
        table.add_row(escape(step.id), escape(files), mode, escape(step.title))
    return table


def _lab_notes(the_lab: Lab, settings: Settings) -> list[str]:
    """What the table cannot say: where the lab runs, that each run is a new session (so what belongs in the init
    file), and which step writes the files other steps' checks read."""
    notes = [f"  workspace: {settings.workspace(the_lab.name)}; data: {', '.join(the_lab.fixtures.files)} in "
             f"{settings.data_dir}; report: {the_lab.report_file}",
             f"  each step is its own `sql-client.sh -i {the_lab.init_file} -f STEP.sql > STEP.out 2>&1`, a new "
             f"session: what several steps use (tables, views, SET) belongs in {the_lab.init_file} (no query, no "
             "INSERT)"]
    for step in the_lab.steps:
        if step.writes:
            notes.append(f"  {', '.join(step.writes)}: written by the {step.id} step ({step.sql_file})")
    return notes


@command("labs")
def labs_command(
    lab: Annotated[Optional[str], typer.Argument(help="Show this lab's guide, step by step.")] = None,
    workspace: Annotated[Optional[Path], typer.Option("--workspace", help=WORKSPACE_HELP)] = None,
    data_dir: Annotated[Optional[Path], typer.Option("--data-dir", help=DATA_DIR_HELP)] = None,
) -> None:
    """List the labs and their steps; with LAB, its steps and its guide (with this machine's paths)."""
    settings = settings_from(workspace_root=workspace, data_dir=data_dir)
    if lab is not None:
        from flinklab.course.guide import guide_sections

        the_lab = get_lab(lab)
        console.print(_lab_table(the_lab))
        for note in _lab_notes(the_lab, settings):
            console.print(escape(note), soft_wrap=True)  # a path is never broken
        start = lab_starts([the_lab], settings)[0]
        if not start.has_init:  # the workspace explains itself: the learner's first file
            console.print(escape(start.first[:1].upper() + start.first[1:] + "."), soft_wrap=True)
        sections = guide_sections(the_lab, settings)
        if not sections:
            console.print(f"  The lab {the_lab.name!r} has no guide.")
        for heading, text in sections:
            from rich.markdown import Markdown
            from rich.rule import Rule

            if heading:
                console.print(Rule(heading, align="left"))
            console.print(Markdown(text))
        return
    labs, bad = load_labs()
    starts = lab_starts(labs, settings)
    for start in starts:
        console.print(_lab_table(start.lab))
        for note in _lab_notes(start.lab, settings):
            console.print(escape(note), soft_wrap=True)  # a path is never broken
        console.print()
    if starts:  # the path last, where a learner's eye is when the listing ends
        console.print("[bold]The labs in the course's order[/] (`flinklab labs LAB` prints one's guide):")
        for start in starts:
            console.print(f"  {start.position}. [bold]{escape(start.lab.name)}[/] ({escape(start.place)}): "
                          f"{escape(start.first)}", soft_wrap=True)
    for exc in bad:  # a broken plug-in is one line; the labs that load are listed above
        print_error(exc)


@command("new-lab")
def new_lab_command(
    name: Annotated[str, typer.Argument(help="The lab's name (lower-case letters, digits, _).")],
    parent: Annotated[Optional[Path], typer.Option("--dir", metavar="DIR", help="Where to write flinklab-NAME/ "
                                                   "(default: the current directory).")] = None,
) -> None:
    """Write the skeleton of a new lab as its own package (a working one-step lab; docs/writing-a-lab.md)."""
    from flinklab.usecases.newlab import write_skeleton

    root = write_skeleton(name, parent if parent is not None else Path.cwd())
    console.print(f"Wrote {root}", soft_wrap=True)
    console.print(f"Next: `pip install -e {root}`, then `flinklab labs {name}` and `flinklab run {name} --solution`.",
                  soft_wrap=True)
