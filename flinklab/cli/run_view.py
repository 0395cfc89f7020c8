"""What `flinklab run` shows: a live table of its steps while it runs, then the steps table and closing notes.

Imported only by the run command (it needs the runner and rich's live display, which `flinklab check` does not).
"""

from __future__ import annotations

import shlex
import threading
import time
from pathlib import Path
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
from flinklab.usecases.solution import InstallResult

#: how often a run whose output is not a terminal (a pipe, a CI log) says which steps are still running
STILL_RUNNING_SECONDS = 30.0


def job_link(rest_url: str, job_id: str, finished: bool = True) -> str:
    """The Web UI page of a job (Flink 2.x routes: #/job/completed/<id> and #/job/running/<id>)."""
    return f"{rest_url}/#/job/{'completed' if finished else 'running'}/{job_id}/overview"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} s"


class LiveProgress(RunProgress):
    """A live table: one row per step with its status, Flink jobs, running time (ticking) and Web UI link. Where
    the output is not a terminal (no live table), a line every STILL_RUNNING_SECONDS names the steps still
    running."""

    def __init__(self, settings: Settings, steps: list[Step], step_timeout: float | None = None,
                 still_running_seconds: float = STILL_RUNNING_SECONDS):
        self.settings = settings
        self.rest_url = resolve_rest_url(settings)  # the running cluster's endpoint (it may not be the default)
        self.steps = steps
        self.step_timeout = step_timeout
        self.state: dict[str, dict[str, Any]] = {
            s.id: {"status": "[dim]waiting[/]", "jobs": [], "seconds": None, "started": None, "current": "",
                   "job": None}
            for s in steps
        }
        # get_renderable: each refresh draws the table anew, so a running step's time goes on ticking
        self.live = Live(console=console, refresh_per_second=4, transient=True, get_renderable=self._render)
        self._still_running_seconds = still_running_seconds
        self._done = threading.Event()
        self._reporter: threading.Thread | None = None

    def __enter__(self) -> LiveProgress:  # noqa: PYI034
        self.live.__enter__()
        if not console.is_terminal:
            self._reporter = threading.Thread(target=self._report_still_running, name="flinklab-run-progress",
                                              daemon=True)
            self._reporter.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        if self._reporter is not None:
            self._reporter.join()
        self.live.__exit__(*exc)  # type: ignore[arg-type]

    def still_running(self) -> str:
        """The line naming the steps running now, each with its time and statement ("" when none runs)."""
        now = time.monotonic()
        running = [(step.id, st) for step in self.steps
                   if (st := self.state[step.id])["started"] is not None and st["seconds"] is None]
        if not running:
            return ""
        parts = [f"{step_id} ({now - st['started']:.0f} s" + (f", {st['current']}" if st["current"] else "")
                 + (f", Flink job {st['job']}" if st["job"] else "") + ")" for step_id, st in running]
        limit = f" (each is cancelled after {self.step_timeout:g} s)" if self.step_timeout is not None else ""
        return f"still running: {'; '.join(parts)}{limit}"

    def _report_still_running(self) -> None:
        while not self._done.wait(self._still_running_seconds):
            if line := self.still_running():
                console.print(escape(line), soft_wrap=True, highlight=False)

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
            if st["seconds"] is None and seconds is not None and self.step_timeout is not None \
                    and seconds > self.step_timeout / 2:  # say when it will be stopped
                status += f" [yellow](cancelled at {self.step_timeout:g} s)[/]"
            jobs = st["jobs"]
            link = job_link(self.rest_url, jobs[-1], finished=False) if jobs else ""
            table.add_row(step.id, status, "\n".join(jobs), _seconds(seconds), link)
        return table

    def _refresh(self) -> None:
        self.live.refresh()

    def installed(self, result: InstallResult) -> None:
        for line in install_lines(result):  # now, above the live table: before any step can fail the run
            console.print(line, soft_wrap=True)

    def step_started(self, step: Step) -> None:
        self.state[step.id].update(status="[cyan]running[/]", started=time.monotonic())
        self._refresh()

    def statement_started(self, step: Step, index: int, statement: str) -> None:
        self.state[step.id]["current"] = f"#{index + 1} {first_line(statement)[:50]}"
        self._refresh()

    def job_submitted(self, step: Step, job_id: str) -> None:
        """Every job of a step comes here first: shown (and its Web UI link) while it runs, a piped run names it."""
        self.state[step.id]["job"] = job_id
        self.state[step.id]["jobs"].append(job_id)
        self._refresh()

    def statement_finished(self, step: Step, outcome: Any) -> None:
        self.state[step.id]["job"] = None
        self._refresh()

    def step_finished(self, run: StepRun) -> None:
        self.state[run.step.id].update(status=_status_markup(run), seconds=run.seconds, current="")
        self._refresh()


def _status_markup(run: StepRun) -> str:
    if not run.ran:
        return "[yellow]skipped[/]"
    return f"[green]{run.status}[/]" if run.ok else f"[red]{run.status}[/]"


def install_lines(result: InstallResult) -> list[str]:
    """What the install of the reference SQL wrote (markup): which files, and where each file of yours went."""
    files = [*result.installed, *result.unchanged]
    names = ", ".join(sorted(path.name for path in files))
    lines = [f"Installed the reference {escape(names)} into {escape(str(result.workspace))} "
             f"({len(result.installed)} written, {len(result.unchanged)} unchanged)."]
    lines += [f"  your {escape(original.name)} was moved to [bold]{escape(backup.name)}[/]"
              for original, backup in result.backups]
    return lines


def check_command_line(lab: str, *, workspace: Path | None = None, data_dir: Path | None = None) -> str:
    """`flinklab check LAB` with the run's own --workspace and --data-dir (shell-quoted): the next command must
    grade the workspace the run wrote, with the data it read."""
    words = ["flinklab", "check", lab]
    for option, value in (("--workspace", workspace), ("--data-dir", data_dir)):
        if value is not None:
            words += [option, str(value)]
    return shlex.join(words)


def render_run(run: LabRun, settings: Settings, next_command: str = "") -> None:
    """The steps table and the closing notes of a run; `next_command` is the command the last line suggests
    (default `flinklab check LAB`)."""
    if run.provisioned:
        from flinklab.usecases.provision import provisioned_line

        console.print(escape(provisioned_line(run.lab, settings, run.provisioned)), soft_wrap=True)
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
    verdict = "[bold green]All steps ran.[/]" if run.ok else \
        "[bold red]Some steps failed, timed out or were skipped.[/]" if any(s.timed_out for s in run.steps) else \
        "[bold red]Some steps failed or were skipped.[/]"
    next_command = next_command or check_command_line(run.lab.name)
    console.print(f"{verdict} Next: [bold]{escape(next_command)}[/]", soft_wrap=True)
