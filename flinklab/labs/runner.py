"""Run a lab's steps the way a learner would, through the SQL gateway.

Each step does exactly what `sql-client.sh -i ddl.sql -f STEP.sql > STEP.out 2>&1` does: a fresh gateway session
per step (as each `sql-client.sh` call has its own), all steps over one connection to the gateway that `flink-up`
started. A failing step does not stop the run: the real client stops at the first failing statement of a file,
but the learner runs every file anyway.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flinklab.cluster.base import resolve_rest_url
from flinklab.cluster.rest import FlinkRest, RestUnavailable
from flinklab.errors import ClusterError, FlinklabError, UsageError
from flinklab.labs.base import Lab, Step
from flinklab.labs.solution import InstallResult, install_solution, write_keeping_backup
from flinklab.settings import Settings
from flinklab.text import first_line

if TYPE_CHECKING:
    from flinklab.sqlclient.client import SqlClient


class RunProgress:
    """Callbacks for a live display; every method is a no-op here."""

    def step_started(self, step: Step) -> None: ...

    def statement_started(self, step: Step, index: int, statement: str) -> None: ...

    def statement_finished(self, step: Step, outcome: Any) -> None: ...

    def step_finished(self, run: StepRun) -> None: ...


@dataclass
class StepRun:
    step: Step
    out_file: Path
    ran: bool = False  # False: skipped (its SQL file or the init file is missing, or the cluster went away)
    ok: bool = False  # ran and did what the step expects (succeeded, or failed when expect_error)
    statements_ok: bool = False  # every statement succeeded
    seconds: float = 0.0
    job_ids: list[str] = field(default_factory=list)
    statements: int = 0
    error: str = ""  # the first error line, or why the step was skipped

    @property
    def status(self) -> str:
        if not self.ran:
            return "skipped"
        if self.step.expect_error:
            return "ok (rejected)" if self.ok else "failed (expected a rejection)"
        return "ok" if self.ok else "failed"


@dataclass
class LabRun:
    lab: Lab
    workspace: Path
    solution: bool
    steps: list[StepRun] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # workspace files the run needed and did not find
    install: InstallResult | None = None
    report_path: Path | None = None  # set when report.json was written
    report_error: str = ""  # why it was not
    report_backup: Path | None = None  # a different report.json that was there before, moved aside
    wall_seconds: float = 0.0
    #: per job id, the duration Flink reports (seconds); None where the REST API did not say
    job_durations: dict[str, float | None] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return bool(self.steps) and all(s.ok for s in self.steps)

    @property
    def job_ids(self) -> list[str]:
        return [job for s in self.steps for job in s.job_ids]

    @property
    def job_seconds(self) -> float | None:
        """Sum of the Flink job durations; None when no duration is known."""
        known = [d for d in self.job_durations.values() if d is not None]
        return sum(known) if known else None


class _StepListener:
    """Adapts the runner's RunListener calls to RunProgress for one step."""

    def __init__(self, step: Step, progress: RunProgress):
        self.step = step
        self.progress = progress

    def statement_started(self, index: int, statement: str) -> None:
        self.progress.statement_started(self.step, index, statement)

    def statement_finished(self, outcome: Any) -> None:
        self.progress.statement_finished(self.step, outcome)


def select_steps(lab: Lab, only: str | None) -> list[Step]:
    """The steps a run covers: just `only` (an unknown id is a UsageError), else all of them."""
    return [lab.step(only)] if only else list(lab.steps)


def run_step(client: SqlClient, lab: Lab, step: Step, workspace: Path, progress: RunProgress) -> StepRun:
    """`sql-client.sh -i ddl.sql -f STEP.sql > STEP.out 2>&1` for one step, through `client`."""
    from flinklab.sqlclient.client import run_invocation

    run = StepRun(step=step, out_file=workspace / step.out_file, ran=True)
    for name in step.writes:  # Flink refuses to overwrite a compiled plan
        (workspace / name).unlink(missing_ok=True)
    init_files = [workspace / lab.init_file] if step.uses_init else []
    tmp = run.out_file.with_name(f".{run.out_file.name}.tmp")
    started = time.monotonic()
    try:
        with tmp.open("w", encoding="utf-8", newline="") as out:
            result = run_invocation(
                client,
                out,
                init_files=init_files,
                script_file=workspace / step.sql_file,
                listener=_StepListener(step, progress),
            )
    except FlinklabError as exc:
        run.seconds = time.monotonic() - started
        run.error = exc.message
        if tmp.exists():
            tmp.replace(run.out_file)  # keep what was printed before the failure, as the shell would
        raise _StepAborted(run, exc) from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(run.out_file)
    run.seconds = time.monotonic() - started
    run.statements = len(result.statements)
    run.job_ids = list(result.job_ids)
    run.statements_ok = bool(result.ok)
    failing = next((s for s in result.statements if not s.ok), None)
    run.error = first_line(failing.error) if failing is not None else ""
    if step.expect_error:
        run.ok = not result.ok
        if result.ok:
            run.error = "every statement succeeded, but this step's lesson is Flink's rejection"
    else:
        run.ok = bool(result.ok)
    return run


class _StepAborted(Exception):
    def __init__(self, run: StepRun, cause: FlinklabError):
        super().__init__(cause.message)
        self.run = run
        self.cause = cause


def job_durations(settings: Settings, job_ids: list[str]) -> dict[str, float | None]:
    """Each job's duration per the REST API (seconds); None for a job it did not describe."""
    rest = FlinkRest(resolve_rest_url(settings))  # the running cluster's endpoint, as the runner used
    durations: dict[str, float | None] = {}
    for job_id in job_ids:
        try:
            duration = rest.job(job_id).get("duration")
            durations[job_id] = (
                duration / 1000.0 if isinstance(duration, (int, float)) and duration >= 0 else None
            )
        except RestUnavailable:
            durations[job_id] = None
    return durations


def write_report(lab: Lab, workspace: Path, run: LabRun) -> None:
    """report.json from the saved outputs; a different existing report is moved to a backup first."""
    try:
        report = lab.build_report(workspace)
    except FlinklabError as exc:
        run.report_error = exc.message + (f" ({exc.hint})" if exc.hint else "")
        return
    text = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
    written = InstallResult(workspace=workspace)
    write_keeping_backup(workspace / lab.report_file, text, written)
    run.report_path = workspace / lab.report_file
    if written.backups:
        run.report_backup = written.backups[0][1]


def run_lab(
    settings: Settings,
    lab: Lab,
    *,
    solution: bool = False,
    only: str | None = None,
    client: SqlClient | None = None,
    progress: RunProgress | None = None,
) -> LabRun:
    """Run the lab's steps (or just `only`) in its workspace and write report.json.

    Without `solution`, the learner's files run; missing ones are skipped and listed. With `solution`, the
    reference SQL is installed first (the learner's differing files are backed up). One SqlClient for all steps:
    `client` if given (left open), else one created here and closed at the end.
    """
    progress = progress or RunProgress()
    steps = select_steps(lab, only)
    workspace = settings.workspace(lab.name)
    run = LabRun(lab=lab, workspace=workspace, solution=solution)
    started = time.monotonic()
    if solution:
        run.install = install_solution(settings, lab)
    elif not workspace.is_dir():
        raise UsageError(
            f"No workspace for {lab.name!r} at {workspace}.",
            f"Write your SQL files there, or run the reference: `flinklab run {lab.name} --solution`.",
        )

    init_missing = not (workspace / lab.init_file).is_file()
    skip_reason: dict[str, str] = {}
    for step in steps:
        if not (workspace / step.sql_file).is_file():
            skip_reason[step.id] = f"{step.sql_file} is missing"
        elif step.uses_init and init_missing:
            skip_reason[step.id] = f"needs {lab.init_file}, which is missing"
    needed = {s.sql_file for s in steps} | ({lab.init_file} if any(s.uses_init for s in steps) else set())
    run.missing = sorted(name for name in needed if not (workspace / name).is_file())

    own_client = client is None and len(skip_reason) < len(steps)
    if own_client:
        from flinklab.sqlclient.client import SqlClient

        client = SqlClient(settings)
    try:
        cluster_gone = ""
        for step in steps:
            reason = skip_reason.get(step.id) or (f"not run: {cluster_gone}" if cluster_gone else "")
            if reason:
                step_run = StepRun(step=step, out_file=workspace / step.out_file, error=reason)
            else:
                progress.step_started(step)
                try:
                    step_run = run_step(client, lab, step, workspace, progress)
                except _StepAborted as aborted:
                    step_run = aborted.run
                    if isinstance(aborted.cause, ClusterError):
                        cluster_gone = aborted.cause.message  # later steps would only wait and fail
            run.steps.append(step_run)
            progress.step_finished(step_run)
    finally:
        if own_client and client is not None:
            client.close()

    write_report(lab, workspace, run)
    run.job_durations = job_durations(settings, run.job_ids)
    run.wall_seconds = time.monotonic() - started
    return run
