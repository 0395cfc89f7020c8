"""What `flinklab run` shows: a live table of its steps while it runs, then the steps table and closing notes.

Imported only by the run command (it needs the runner and rich's live display, which `flinklab check` does not).
"""

from __future__ import annotations

import time
from typing import Any

from rich.live import Live
from rich.markup import escape
from rich.table import Table

from flinklab.cli.app import console
from flinklab.cluster.base import resolve_rest_url
from flinklab.lab_api import Step
from flinklab.settings import Settings
from flinklab.text import first_line
from flinklab.usecases.run import LabRun, RunProgress, StepRun


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
    if run.provisioned:
        from flinklab.usecases.provision import provisioned_line

        console.print(escape(provisioned_line(run.lab, settings, run.provisioned)), soft_wrap=True)
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
