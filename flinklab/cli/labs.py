"""Lab commands: `flinklab run`, `flinklab check`, `flinklab fixtures generate`, `flinklab labs`.

Thin: parse options, call the library (labs.runner, grading.grader, labs.fixtures_io), render.
"""
# typer reads these annotations at runtime, and Python 3.9 cannot evaluate `X | None` there.
# ruff: noqa: UP045

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.live import Live
from rich.markup import escape
from rich.table import Table

from flinklab.cli.app import app, command, console, settings_from
from flinklab.cluster.base import resolve_rest_url
from flinklab.errors import ExitStatus
from flinklab.grading.grader import grade_lab, grading_context
from flinklab.grading.render import render_report, write_json, write_junit
from flinklab.labs import available_labs, get_lab
from flinklab.labs.base import Lab, Step
from flinklab.labs.fixtures_io import write_fixtures
from flinklab.labs.runner import LabRun, RunProgress, StepRun, run_lab, select_steps
from flinklab.pictures.html_report import write_html
from flinklab.settings import Settings
from flinklab.text import first_line

fixtures_app = typer.Typer(help="The labs' generated data.", no_args_is_help=True)
app.add_typer(fixtures_app, name="fixtures")

WORKSPACE_HELP = "Workspace root (the lab's files are in ROOT/LAB); default $FLINKLAB_WORKSPACE or ~/flink."
DATA_DIR_HELP = "Where the lab's CSVs are; default $FLINKLAB_DATA_DIR or /opt/lab/fixtures/data."


def job_link(rest_url: str, job_id: str, finished: bool = True) -> str:
    """The Web UI page of a job (Flink 2.x routes: #/job/completed/<id> and #/job/running/<id>)."""
    return f"{rest_url}/#/job/{'completed' if finished else 'running'}/{job_id}/overview"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} s"


class LiveProgress(RunProgress):
    """A live table: one row per step with its status, Flink jobs, time and Web UI link."""

    def __init__(self, settings: Settings, steps: list[Step]):
        self.settings = settings
        self.rest_url = resolve_rest_url(settings)  # the running cluster's endpoint (it may not be the default)
        self.steps = steps
        self.state: dict[str, dict[str, Any]] = {
            s.id: {"status": "[dim]waiting[/]", "jobs": [], "seconds": None, "started": None, "current": ""}
            for s in steps
        }
        self.live = Live(self._render(), console=console, refresh_per_second=4, transient=True)

    def __enter__(self) -> LiveProgress:  # noqa: PYI034
        self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.live.__exit__(*exc)  # type: ignore[arg-type]

    def _render(self) -> Table:
        table = Table(title="running", title_justify="left")
        for name in ("step", "status", "Flink jobs", "time", "Web UI"):
            table.add_column(name, overflow="fold")
        for step in self.steps:
            st = self.state[step.id]
            seconds = st["seconds"]
            if seconds is None and st["started"] is not None:
                seconds = time.monotonic() - st["started"]
            status = st["status"] + (f" [dim]{escape(st['current'])}[/]" if st["current"] else "")
            jobs = st["jobs"]
            link = job_link(self.rest_url, jobs[-1], finished=False) if jobs else ""
            table.add_row(step.id, status, "\n".join(jobs), _seconds(seconds), link)
        return table

    def _refresh(self) -> None:
        self.live.update(self._render())

    def step_started(self, step: Step) -> None:
        self.state[step.id].update(status="[cyan]running[/]", started=time.monotonic())
        self._refresh()

    def statement_started(self, step: Step, index: int, statement: str) -> None:
        self.state[step.id]["current"] = f"#{index + 1} {first_line(statement)[:50]}"
        self._refresh()

    def statement_finished(self, step: Step, outcome: Any) -> None:
        job_id = getattr(outcome, "job_id", None)
        if job_id:
            self.state[step.id]["jobs"].append(job_id)
        self._refresh()

    def step_finished(self, run: StepRun) -> None:
        self.state[run.step.id].update(status=_status_markup(run), seconds=run.seconds, current="")
        self._refresh()


def _status_markup(run: StepRun) -> str:
    if not run.ran:
        return "[yellow]skipped[/]"
    return f"[green]{run.status}[/]" if run.ok else f"[red]{run.status}[/]"


def render_run(run: LabRun, settings: Settings) -> None:
    """The steps table and the closing notes of a run."""
    if run.install is not None:
        console.print(
            f"Installed the reference SQL of {run.lab.name} into {run.workspace} "
            f"({len(run.install.installed)} written, {len(run.install.unchanged)} unchanged)."
        )
        for original, backup in run.install.backups:
            console.print(f"  your {original.name} was moved to [bold]{escape(backup.name)}[/]")
    table = Table(title=f"flinklab run {run.lab.name}", title_justify="left")
    # Short columns only, so the table fits an 80-column terminal; errors go on lines of their own below it.
    for name in ("step", "output", "status", "Flink jobs", "time"):
        table.add_column(name, no_wrap=True)
    for step_run in run.steps:
        table.add_row(
            step_run.step.id,
            step_run.step.out_file,
            _status_markup(step_run),
            "\n".join(j[:8] for j in step_run.job_ids),
            _seconds(step_run.seconds) if step_run.ran else "-",
        )
    console.print(table)
    for step_run in run.steps:
        if step_run.error:
            console.print(f"[dim]{step_run.step.id}:[/] {escape(step_run.error)}", soft_wrap=True, highlight=False)
    # Links on lines of their own: a folded URL cannot be clicked.
    rest_url = resolve_rest_url(settings)
    for step_run in run.steps:
        for job_id in step_run.job_ids:
            console.print(
                f"{step_run.step.id}: {job_link(rest_url, job_id)}", soft_wrap=True, highlight=False
            )
    console.print(f"Web UI: {rest_url}/#/overview", soft_wrap=True, highlight=False)
    if run.missing:
        console.print(f"[yellow]Missing in {run.workspace}:[/] {', '.join(run.missing)}")
    if run.report_path is not None:
        console.print(f"Report: {run.report_path}")
        if run.report_backup is not None:
            console.print(f"  the previous report was moved to {escape(run.report_backup.name)}")
    else:
        console.print(f"[yellow]No report written:[/] {escape(run.report_error)}")
    jobs = len(run.job_ids)
    console.print(
        f"Wall time {run.wall_seconds:.1f} s for {len(run.steps)} step(s); "
        f"{jobs} Flink job(s) ran for {_seconds(run.job_seconds)} in all (REST API durations)."
    )
    verdict = "[bold green]All steps ran.[/]" if run.ok else "[bold red]Some steps failed or were skipped.[/]"
    console.print(f"{verdict} Next: [bold]flinklab check {run.lab.name}[/]")


@command("run")
def run_command(
    lab: Annotated[str, typer.Argument(help="The lab to run (see `flinklab labs`).")],
    solution: Annotated[
        bool, typer.Option("--solution", help="Install and run the reference SQL (your files are backed up).")
    ] = False,
    only: Annotated[Optional[str], typer.Option("--only", metavar="STEP", help="Run just this step.")] = None,
    workspace: Annotated[Optional[Path], typer.Option("--workspace", help=WORKSPACE_HELP)] = None,
    data_dir: Annotated[Optional[Path], typer.Option("--data-dir", help=DATA_DIR_HELP)] = None,
) -> None:
    """Run a lab's steps like `sql-client.sh -i ddl.sql -f STEP.sql > STEP.out`, then write report.json."""
    settings = settings_from(workspace_root=workspace, data_dir=data_dir)
    the_lab = get_lab(lab)
    steps = select_steps(the_lab, only)
    with LiveProgress(settings, steps) as progress:
        run = run_lab(settings, the_lab, solution=solution, only=only, progress=progress)
    render_run(run, settings)
    raise typer.Exit(int(ExitStatus.SUCCESS if run.ok else ExitStatus.FAILURE))


@command("check")
def check_command(
    lab: Annotated[str, typer.Argument(help="The lab to grade.")],
    json_file: Annotated[
        Optional[Path], typer.Option("--json", metavar="FILE", help="Also write Gradescope-style JSON.")
    ] = None,
    junit_file: Annotated[
        Optional[Path], typer.Option("--junit", metavar="FILE", help="Also write JUnit XML.")
    ] = None,
    html_file: Annotated[
        Optional[Path], typer.Option("--html", metavar="FILE",
                                     help="Also write one self-contained HTML page with pictures of failed steps.")
    ] = None,
    workspace: Annotated[Optional[Path], typer.Option("--workspace", help=WORKSPACE_HELP)] = None,
    data_dir: Annotated[Optional[Path], typer.Option("--data-dir", help=DATA_DIR_HELP)] = None,
) -> None:
    """Grade the saved work (never asks the cluster). Exit 0 all pass, 1 a check failed, 2 could not grade."""
    settings = settings_from(workspace_root=workspace, data_dir=data_dir)
    the_lab = get_lab(lab)
    report = grade_lab(settings, the_lab)
    render_report(report, console)
    if json_file is not None:
        write_json(report, json_file)
        console.print(f"Wrote {json_file}")
    if junit_file is not None:
        write_junit(report, junit_file)
        console.print(f"Wrote {junit_file}")
    if html_file is not None:
        console.print(f"Wrote {write_html(report, html_file, grading_context(settings, the_lab))}", soft_wrap=True)
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
        Optional[Path], typer.Option("--out", help="Output dir (default: the project's fixtures/).")
    ] = None,
) -> None:
    """Write the labs' CSVs (deterministic for a seed and scale)."""
    settings = settings_from()
    out_dir = out.expanduser() if out is not None else settings.fixtures_dir
    for name in labs or available_labs():
        the_lab = get_lab(name)
        for path in write_fixtures(the_lab, out_dir, seed=seed, scale=scale):
            rows = path.read_bytes().count(b"\n")
            console.print(f"{name}: {path} ({rows} rows)")


@command("labs")
def labs_command() -> None:
    """List the labs and their steps."""
    for name in available_labs():
        the_lab: Lab = get_lab(name)
        table = Table(title=f"{name}: {the_lab.title}", title_justify="left")
        for column in ("step", "title", "runs", "mode", "writes"):
            table.add_column(column, overflow="fold")
        for step in the_lab.steps:
            init = f"-i {the_lab.init_file} " if step.uses_init else ""
            writes = "\n".join((step.out_file, *step.writes))
            mode = step.mode + (" (expects an error)" if step.expect_error else "")
            table.add_row(step.id, step.title, f"{init}-f {step.sql_file}", mode, writes)
        console.print(table)
        console.print(f"  data: {', '.join(the_lab.fixtures.files)}; report: {the_lab.report_file}\n")
