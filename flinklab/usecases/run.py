"""Run a lab's steps the way a learner would, through the SQL gateway.

Each step does exactly what `sql-client.sh -i ddl.sql -f STEP.sql > STEP.out 2>&1` does: a fresh gateway session
per step (as each `sql-client.sh` call has its own), all steps over one connection to the gateway that `flink-up`
started. Steps are independent (each reads ddl.sql and its own file, and writes only its own outputs), so up to
`run_parallel` of them run at once, which hides each step's planning and result fetching behind another's job. A
failing step does not stop the run: the real client stops at the first failing statement of a file, but the
learner runs every file anyway. A watch on the cluster ends the run within seconds when the JobManager dies. With
a step timeout, a step that runs past it is stopped alone (run_timeout.py) and the run goes on.
"""

from __future__ import annotations

import copy
import time
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flinklab.cluster.base import resolve_rest_url
from flinklab.errors import ClusterError, FlinklabError
from flinklab.flink.rest import RestUnavailable
from flinklab.flink.tls import cluster_rest
from flinklab.grading.outputs import error_line, read_step
from flinklab.grading.run_record import record_run
from flinklab.lab_api import ExpectedError, Lab, LabChecks, Step, StepSpec
from flinklab.settings import Settings
from flinklab.text import first_line
from flinklab.usecases.provision import provision_for_run
from flinklab.usecases.run_plan import RunPlan, prepare_run, skip_reasons
from flinklab.usecases.run_report import OutputWriteError, outputs_report, write_report
from flinklab.usecases.run_timeout import ClientFactory, StepClients, StepClock, timed_out_line
from flinklab.usecases.solution import InstallResult, install_solution, solution_files_for

if TYPE_CHECKING:
    from flinklab.sqlclient.client import SqlClient


class RunProgress:
    """Callbacks for a live display; every method is a no-op here."""

    def installed(self, result: InstallResult) -> None:
        """The reference SQL was installed (before any step runs: a learner's file moved aside is said at once)."""

    def step_started(self, step: Step) -> None: ...

    def statement_started(self, step: Step, index: int, statement: str) -> None: ...

    def job_submitted(self, step: Step, job_id: str) -> None:
        """A statement of `step` submitted its Flink job (before it ends: a streaming query may run for long)."""

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
    partial_file: Path | None = None  # what an interrupted step printed (its STEP.out was left unchanged)
    timed_out: bool = False  # stopped after the run's step timeout (its Flink job cancelled)

    @property
    def status(self) -> str:
        if not self.ran:
            return "skipped"
        if self.timed_out:
            return "timed out"
        if self.step.expect_error:
            if self.ok:
                return "ok (rejected)"
            return "failed (expected a rejection)" if self.statements_ok else "error (not the expected one)"
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
    provisioned: list[Path] = field(default_factory=list)  # the lab's CSVs copied into the data dir (were absent)
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

    def job_submitted(self, job_id: str) -> None:
        self.progress.job_submitted(self.step, job_id)

    def statement_finished(self, outcome: Any) -> None:
        self.progress.statement_finished(self.step, outcome)


def run_step(client: SqlClient, lab: Lab, step: Step, workspace: Path, progress: RunProgress,
             timeout: float | None = None) -> StepRun:
    """`sql-client.sh -i ddl.sql -f STEP.sql > STEP.out 2>&1` for one step, through `client`; after `timeout`
    seconds the client is aborted (the step's own: see run_timeout.py) and the step is `timed_out`."""
    from flinklab.sqlclient.client import run_invocation

    run = StepRun(step=step, out_file=workspace / step.out_file, ran=True)
    for name in step.writes:  # Flink refuses to overwrite a compiled plan
        (workspace / name).unlink(missing_ok=True)
    init_files = [workspace / lab.init_file] if step.uses_init else []
    tmp = run.out_file.with_name(f".{run.out_file.name}.tmp")
    clock = StepClock(step, timeout, client) if timeout is not None else None
    started = time.monotonic()
    try:
        with tmp.open("w", encoding="utf-8", newline="") as out:
            if clock is not None:
                clock.start()
            result = run_invocation(
                client,
                out,
                init_files=init_files,
                script_file=workspace / step.sql_file,
                listener=_StepListener(step, progress),
            )
    except FlinklabError as exc:  # the cluster or the gateway went away (the watch aborted the client), ...
        # Not the step's output: a previous complete STEP.out stays; what was printed is kept aside, by a name
        # no one takes for a finished output.
        run.seconds = time.monotonic() - started
        run.error = exc.message
        run.partial_file = _keep_partial(tmp, run.out_file)
        if clock is not None and clock.expired:  # the step's own fault: the run goes on
            run.timed_out = True
            run.error = timed_out_line(lab, step, workspace, clock.seconds, run.partial_file)
            return run
        raise _StepAborted(run, exc) from exc
    except OSError as exc:  # the workspace is full, or became unwritable
        tmp.unlink(missing_ok=True)
        raise OutputWriteError(run.out_file, exc) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        if clock is not None:
            clock.stop()
    try:
        tmp.replace(run.out_file)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OutputWriteError(run.out_file, exc) from None
    record_run(run.out_file, init_files, workspace / step.sql_file)  # which ddl.sql wrote it (never fails)
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
        elif (wrong := _unexpected_error(lab, step, workspace)) is not None:
            run.ok, run.error = False, wrong
    else:
        run.ok = bool(result.ok)
    return run


def expected_errors(lab: Lab, step: Step) -> list[ExpectedError]:
    """The errors the lab's check table expects of `step` (none when its checks are code, not a table)."""
    table = lab.checks
    if not isinstance(table, LabChecks):
        return []
    return [check for spec in table.steps if isinstance(spec, StepSpec) and spec.id == step.id
            for check in spec.checks if isinstance(check, ExpectedError)]


def _unexpected_error(lab: Lab, step: Step, workspace: Path) -> str | None:
    """Why the error in the step's saved output is not the one the lab's checks expect (None when it is, or the
    lab declares none): the check's own test, a phrase of the expected error in a reason the output shows."""
    expected = expected_errors(lab, step)
    if not expected:
        return None
    reasons = read_step(workspace, step.out_file).errors
    missing = [check for check in expected if not any(check.phrase in reason for reason in reasons)]
    if not missing:
        return None
    found = error_line(reasons[0], 300).rstrip(".") if reasons else "an error"
    return f"expected the [ERROR] '{missing[0].shown}'; found another error: {found}."


def _keep_partial(tmp: Path, out_file: Path) -> Path | None:
    """Move a step's interrupted output to `STEP.out.partial` (None when nothing was printed)."""
    try:
        if tmp.stat().st_size == 0:
            tmp.unlink()
            return None
        partial = out_file.with_name(out_file.name + ".partial")
        tmp.replace(partial)
        return partial
    except OSError:
        tmp.unlink(missing_ok=True)
        return None


class _RunStopped(Exception):
    """What the other steps of a parallel run raise once one step ended the run (Ctrl-C, an unwritable output)."""


class _StepAborted(Exception):
    def __init__(self, run: StepRun, cause: FlinklabError):
        super().__init__(cause.message)
        self.run = run
        self.cause = cause


def _cluster_gone(aborted: _StepAborted) -> ClusterError:
    """The one-line error of a run whose cluster or gateway went away during step `aborted.run`."""
    run = aborted.run
    kept = f"; what it printed is in {run.partial_file.name}" if run.partial_file else ""
    return ClusterError(
        f"{aborted.cause.message.rstrip('.')}: the run stopped at step {run.step.id} ({run.out_file.name} is "
        f"unchanged{kept}; no report written).",
        aborted.cause.hint or "Repair the cluster with `flink-up`, then run again.",
    )


def _parallelism(client: SqlClient | None, wanted: int, runnable: int) -> int:
    """How many steps to run at once: `wanted`, but no more than there are steps or free slots (a class sharing
    one cluster keeps the slots for each other)."""
    if client is None or runnable <= 1 or wanted <= 1:
        return 1
    free = wanted
    if client.cluster_url is not None:
        try:
            free = int(client.cluster_rest(timeout=5).overview().get("slots-available", wanted))
        except (RestUnavailable, TypeError, ValueError):
            free = 1
    return max(1, min(wanted, runnable, free))


def _run_steps(clients: StepClients | None, lab: Lab, steps: list[Step], workspace: Path,
               skip_reason: dict[str, str], progress: RunProgress, parallel: int,
               timeout: float | None = None) -> list[StepRun]:
    """Every step's run, in the lab's order: one at a time, or up to `parallel` at once on threads sharing the
    client (each on its own with a `timeout`). A batch step runs alone (its job may take a slot per region). When
    the cluster or the gateway goes away (ClusterError), the other steps are stopped and the run ends with one
    error; Ctrl-C stops them all too. A step past `timeout` is stopped alone."""

    def one(step: Step) -> StepRun:
        reason = skip_reason.get(step.id)
        if reason:
            step_run = StepRun(step=step, out_file=workspace / step.out_file, error=reason)
            progress.step_finished(step_run)
            return step_run
        assert clients is not None
        progress.step_started(step)
        try:
            try:
                with clients.for_step() as client:
                    step_run = run_step(client, lab, step, workspace, progress, timeout)
            except ClusterError as exc:  # no client for the step: the gateway went away
                raise _StepAborted(StepRun(step=step, out_file=workspace / step.out_file, ran=True,
                                           error=exc.message), exc) from exc
        except _StepAborted as aborted:
            progress.step_finished(aborted.run)
            if isinstance(aborted.cause, ClusterError):
                raise  # later steps would only wait and fail, and a report would grade a half-run lab
            return aborted.run
        progress.step_finished(step_run)
        return step_run

    try:
        if parallel <= 1 or clients is None:
            return [one(step) for step in steps]
        runs: dict[str, StepRun] = {}
        with ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="flinklab-step") as pool:
            running: list[tuple[Step, Future[StepRun]]] = []
            try:
                for step in steps:
                    if step.mode == "batch" and step.id not in skip_reason:
                        _collect(running, runs)
                        runs[step.id] = one(step)
                    else:
                        running.append((step, pool.submit(one, step)))
                _collect(running, runs)
            except BaseException as exc:
                for _, future in running:
                    future.cancel()
                stop: BaseException = exc.cause if isinstance(exc, _StepAborted) else _RunStopped()
                clients.abort(lambda: copy.copy(stop))  # the running steps stop at their next call
                raise
        return [runs[step.id] for step in steps]
    except _StepAborted as aborted:
        raise _cluster_gone(aborted) from None


def _collect(running: list[tuple[Step, Future[StepRun]]], runs: dict[str, StepRun]) -> None:
    """Wait for the steps in `running`, in order, into `runs` (the first one's exception is raised)."""
    while running:
        step, future = running[0]
        runs[step.id] = future.result()
        running.pop(0)


def job_durations(settings: Settings, job_ids: list[str]) -> dict[str, float | None]:
    """Each job's duration per the REST API (seconds); None for a job it did not describe."""
    rest = cluster_rest(resolve_rest_url(settings), settings.state_dir)  # the running cluster's, as the runner used
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


def run_lab(
    settings: Settings,
    lab: Lab,
    *,
    solution: bool = False,
    only: str | None = None,
    client: SqlClient | None = None,
    progress: RunProgress | None = None,
    parallel: int | None = None,
    step_timeout: float | None = None,
    clients: ClientFactory | None = None,
) -> LabRun:
    """Run the lab's steps (or just `only`) in its workspace and write report.json: `run_planned` of
    `prepare_run` (see both)."""
    plan = prepare_run(settings, lab, solution=solution, only=only)
    return run_planned(settings, plan, client=client, progress=progress, parallel=parallel,
                       step_timeout=step_timeout, clients=clients)


def run_planned(
    settings: Settings,
    plan: RunPlan,
    *,
    client: SqlClient | None = None,
    progress: RunProgress | None = None,
    parallel: int | None = None,
    step_timeout: float | None = None,
    clients: ClientFactory | None = None,
) -> LabRun:
    """Run a planned run and write report.json.

    Without `plan.solution`, the learner's files run; missing ones are skipped and listed. With it, the
    reference SQL of the planned steps is installed first (their SQL files and the init file; the learner's
    differing files are backed up). One SqlClient for all steps: `client` if given (left open), else one created
    here and closed at the end. Up to `parallel` steps run at once (default `settings.run_parallel`; never more
    than the cluster's free slots); the results are the same as one at a time, as each step has its own session
    and writes only its own files. With `step_timeout` (seconds), a step still running then is stopped and its
    Flink job cancelled (the step `timed_out`); each step then runs on a client of its own, from `clients`
    (default: a client of flinklab's gateway, as `client` would be).
    """
    progress = progress or RunProgress()
    lab, steps, workspace = plan.lab, plan.steps, plan.workspace
    run = LabRun(lab=lab, workspace=workspace, solution=plan.solution)
    started = time.monotonic()
    skip_reason, run.missing = plan.skip_reason, plan.missing
    if plan.solution:
        run.install = install_solution(settings, lab, solution_files_for(lab, steps))
        progress.installed(run.install)
        skip_reason, run.missing = skip_reasons(lab, steps, workspace)
    before = outputs_report(lab, workspace)  # what report.json's values came from, if flinklab wrote it

    runnable = len(steps) - len(skip_reason)
    own_client = client is None and runnable > 0
    if runnable:  # a lab installed after `flink-up`: its CSVs, before a job reads them
        run.provisioned = provision_for_run(settings, lab)
    if runnable and (own_client or (step_timeout is not None and clients is None)):
        from flinklab.environment.client import LabSqlClient

        client = client if client is not None else LabSqlClient(settings)
        clients = clients or (lambda: LabSqlClient(settings))
    try:
        wanted = settings.run_parallel if parallel is None else parallel
        # with a timeout, each step on a client of its own: a step aborted for its time stops no other
        step_clients = None if client is None else \
            StepClients(client, clients if step_timeout is not None else None)
        with step_clients.watching() if step_clients is not None else nullcontext():
            run.steps = _run_steps(step_clients, lab, steps, workspace, skip_reason, progress,
                                   _parallelism(client, wanted, runnable), step_timeout)
    finally:
        if own_client and client is not None:
            client.close()

    write_report(lab, workspace, run, before, partial=len(steps) < len(lab.steps))
    run.job_durations = job_durations(settings, run.job_ids)
    run.wall_seconds = time.monotonic() - started
    return run
