"""`flinklab grade LAB SUBMISSION`: rerun a learner's SQL in a private workspace and grade what it printed.

`flinklab check` grades the saved outputs, which a learner can write by hand; a teacher's grade must come from
running the learner's SQL. So the grader copies only `ddl.sql` and the lab's step files out of the submission
(never its outputs, plans or report), points their paths at this machine's data and a fresh private workspace,
refuses what could reach the grader (grade_sandbox.py), runs each step as `flinklab run` does (each step with its
own client, so a step past `step_timeout` is aborted alone: closing its operation cancels its Flink job), writes
report.json as `flinklab run` does and grades with the lab's checks, as `flinklab check` does.

The cluster: the one `flink-up` started (through its gateway), or the one at `rest_url` (through a gateway in this
process), else a local cluster booted in a private state dir for this run and stopped after it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from flinklab.errors import FlinklabError
from flinklab.grading.formats import GradeResult, StepOutcome
from flinklab.grading.results import CheckResult
from flinklab.lab_api import Lab, Step
from flinklab.settings import Settings
from flinklab.usecases.check import grade_lab
from flinklab.usecases.grade_sandbox import REFUSED_HINT, Sandbox
from flinklab.usecases.run_timeout import ClientFactory, StepClock

if TYPE_CHECKING:
    from flinklab.sqlclient.client import SqlClient

#: The largest SQL file the grader copies (a lab's step is a few hundred bytes).
MAX_SQL_BYTES = 256 * 1024
DEFAULT_STEP_TIMEOUT = 60.0
TIMEOUT_HINT = ("A query that never ends (an unbounded streaming query over a source that does not end, or a join "
                "or aggregation waiting for a watermark that never comes) is cancelled: every step must end on the "
                "lab's data. Run it with `flinklab run` and check that it finishes.")


class StepTimedOut(FlinklabError):
    """What a step's client raises when the step ran past the grader's step timeout."""

    def __init__(self, step: Step, seconds: float):
        super().__init__(f"{step.sql_file} did not finish in {seconds:g} s", TIMEOUT_HINT)


@dataclasses.dataclass
class Submission:
    """The learner's SQL that the grader takes: file name -> text, and what it left out and why."""

    files: dict[str, str]
    skipped: dict[str, str]  # file name -> why it was not taken (a symlink, too large, not UTF-8)


def read_submission(lab: Lab, submission: Path) -> Submission:
    """Only the lab's SQL files (the init file and each step's), as regular files, not symlinks; FlinklabError
    when the submission is not a readable directory."""
    if not submission.is_dir():
        raise FlinklabError(f"The submission {submission} is not a directory.",
                            "Give the folder holding the learner's ddl.sql and step files.")
    files: dict[str, str] = {}
    skipped: dict[str, str] = {}
    for name in lab.solution_files:
        path = submission / name
        if path.is_symlink():
            skipped[name] = "a symbolic link (the grader reads only files of the submission)"
            continue
        if not path.exists():
            continue
        try:
            if not path.is_file():
                skipped[name] = "not a regular file"
                continue
            if path.stat().st_size > MAX_SQL_BYTES:
                skipped[name] = f"larger than {MAX_SQL_BYTES // 1024} KB"
                continue
            files[name] = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            skipped[name] = "not UTF-8 text"
        except OSError as exc:
            skipped[name] = f"unreadable ({exc.strerror or exc})"
    if not files and not skipped:
        try:
            next(submission.iterdir(), None)
        except OSError as exc:
            raise FlinklabError(f"Cannot read the submission {submission}: {exc.strerror or exc}.",
                                "Check its permissions.") from None
    return Submission(files=files, skipped=skipped)


def not_gradable(lab: Lab, submission: Submission, learner: str) -> GradeResult | None:
    """The not-gradable result when the submission holds none of the lab's step files, else None."""
    steps = [s.sql_file for s in lab.steps if s.sql_file in submission.files]
    if steps:
        return None
    if submission.skipped:
        why = "; ".join(f"{name}: {reason}" for name, reason in submission.skipped.items())
        message = f"None of the lab's SQL files could be read ({why})."
    else:
        message = (f"The submission holds none of the {lab.name} lab's SQL files "
                   f"({', '.join(lab.solution_files)}).")
    return GradeResult(lab=lab.name, gradable=False, message=message, learner=learner)




@contextlib.contextmanager
def grading_cluster(settings: Settings, lab: Lab, rest_url: str | None, say: Callable[[str], None],
                    scratch: Path) -> Iterator[tuple[Settings, ClientFactory]]:
    """A cluster to run the steps on, as (settings whose cluster it is, a factory of clients to its gateway)."""
    from flinklab.cluster.base import resolve_rest_url
    from flinklab.environment import gateway
    from flinklab.flink.tls import cluster_rest

    if rest_url is None:
        url = resolve_rest_url(settings)
        if cluster_rest(url, settings.state_dir, 3).is_up():
            if gateway.GatewayProcess(settings).status().healthy:
                from flinklab.environment.client import LabSqlClient

                say(f"using the running cluster at {url}")
                yield settings, lambda: LabSqlClient(settings)
                return
            rest_url = url
        else:
            with _booted_cluster(settings, lab, say, scratch) as booted:
                # its SQL gateway runs in this process: no gateway process, and no wait for the warm-up jobs
                # flink-up runs for a learner's first query
                with _embedded_gateway(booted, booted.rest_url, say) as factory:
                    yield booted, factory
            return
    with _embedded_gateway(settings, rest_url, say) as factory:
        yield dataclasses.replace(settings, remote_url=rest_url, backend="remote"), factory


@contextlib.contextmanager
def _embedded_gateway(settings: Settings, rest_url: str, say: Callable[[str], None]) -> Iterator[ClientFactory]:
    from flinklab.environment.client import start_embedded
    from flinklab.sqlclient.client import SqlClient

    say(f"starting a SQL gateway in this process for the cluster at {rest_url}")
    embedded = start_embedded(settings, rest_url)
    try:
        yield lambda: SqlClient(settings, embedded.url, cluster_url=rest_url, token=embedded.token)
    finally:
        embedded.stop()
        embedded.service.jvm.shutdown()


@contextlib.contextmanager
def _booted_cluster(settings: Settings, lab: Lab, say: Callable[[str], None], scratch: Path) -> Iterator[Settings]:
    """A local cluster and gateway of this run only (private state dir, free ports), stopped after it."""
    from flinklab.flink.procs import free_port
    from flinklab.flink.waiting import ClusterStartError
    from flinklab.usecases.cluster import bring_down, bring_up
    from flinklab.usecases.provision import lab_data_files

    booted = dataclasses.replace(
        settings, state_dir=scratch / "state", backend="local", remote_url="",
        rest_port=free_port(settings.bind_host), gateway_port=free_port(settings.bind_host))
    say("no cluster is running: starting a local one for this grading")
    try:
        try:
            bring_up(booted, lambda event: say(str(event)), data_files=lab_data_files(), with_gateway=False)
        except ClusterStartError as exc:
            for line in exc.log_tail:  # the log dies with the scratch dir: its last lines are the only trace
                say(f"  {line}")
            raise
        yield booted
    finally:
        with contextlib.suppress(FlinklabError):
            bring_down(booted, lambda event: say(str(event)))


def _run_one(settings: Settings, lab: Lab, step: Step, root: Path, client_for: ClientFactory,
             timeout: float) -> StepOutcome:
    """Run `step` in its own workspace (root/LAB) with its own client; abort it after `timeout` seconds."""
    from flinklab.usecases.run import run_lab

    started = time.monotonic()
    client = client_for()
    watch = _StepClock(step, timeout, client)
    try:
        run = run_lab(dataclasses.replace(settings, workspace_root=root), lab, only=step.id, client=client,
                      parallel=1, progress=watch)
    finally:
        watch.stop()
        client.close()
    seconds = time.monotonic() - started
    if watch.expired:
        return StepOutcome(step.id, "timed out", seconds, f"{step.sql_file} did not finish in {timeout:g} s")
    step_run = run.steps[0]
    return StepOutcome(step.id, step_run.status, seconds, step_run.error)


class _StepClock(StepClock):
    """The step's timeout as a progress listener of the run: from its first statement to its end (the run's
    progress says both); what the run does after the step (report.json, job durations) is not timed."""

    def __init__(self, step: Step, timeout: float, client: SqlClient):
        super().__init__(step, timeout, client, error=lambda: StepTimedOut(step, timeout))

    def step_started(self, step: Step) -> None:
        self.start()

    def statement_started(self, step: Step, index: int, statement: str) -> None: ...

    def job_submitted(self, step: Step, job_id: str) -> None: ...

    def statement_finished(self, step: Step, outcome: object) -> None: ...

    def step_finished(self, run: object) -> None:
        self.stop()


def _run_steps(settings: Settings, lab: Lab, roots: dict[str, Path], client_for: ClientFactory, timeout: float,
               parallel: int) -> dict[str, StepOutcome]:
    """Every step in `roots`, up to `parallel` at once (a batch step alone, as `flinklab run` runs one)."""
    outcomes: dict[str, StepOutcome] = {}
    with ThreadPoolExecutor(max_workers=max(1, parallel), thread_name_prefix="flinklab-grade") as pool:
        running: list[tuple[str, Future[StepOutcome]]] = []

        def collect() -> None:
            for step_id, future in running:
                outcomes[step_id] = future.result()
            running.clear()

        for step in lab.steps:
            if step.id not in roots:
                continue
            if step.mode == "batch":
                collect()
                outcomes[step.id] = _run_one(settings, lab, step, roots[step.id], client_for, timeout)
            else:
                running.append((step.id, pool.submit(_run_one, settings, lab, step, roots[step.id], client_for,
                                                     timeout)))
        collect()
    return outcomes


def _prepare(lab: Lab, submission: Submission, settings: Settings, scratch: Path,
             ) -> tuple[dict[str, Path], dict[str, StepOutcome]]:
    """Each runnable step's own workspace root (its SQL copied in and retargeted), and the outcome of every step
    that cannot run (its file missing, or a refused statement in it or in the init file)."""
    plans = tuple(name for s in lab.steps for name in s.writes)
    roots: dict[str, Path] = {}
    outcomes: dict[str, StepOutcome] = {}
    for step in lab.steps:
        root = scratch / "steps" / step.id
        workspace = root / lab.name
        sandbox = Sandbox(settings.data_dir, lab.fixtures.files, workspace, plans)
        names = [lab.init_file, step.sql_file] if step.uses_init else [step.sql_file]
        if step.sql_file not in submission.files:
            why = submission.skipped.get(step.sql_file, "missing from the submission")
            outcomes[step.id] = StepOutcome(step.id, "skipped", error=f"{step.sql_file}: {why}")
            continue
        refused = ""
        texts = {}
        for name in names:
            if name not in submission.files:
                continue
            texts[name] = sandbox.retarget(submission.files[name])
            for statement, why in sandbox.refusals(texts[name]):
                refused = refused or f"refused in {name}: {why} (`{_short(statement)}`)"
        if refused:
            outcomes[step.id] = StepOutcome(step.id, "refused", error=refused)
            continue
        workspace.mkdir(parents=True, mode=0o700)
        for name, text in texts.items():
            (workspace / name).write_text(text, encoding="utf-8")
        roots[step.id] = root
    return roots, outcomes


def _short(statement: str, width: int = 80) -> str:
    flat = " ".join(statement.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _gather(lab: Lab, roots: dict[str, Path], workspace: Path) -> None:
    """Copy each step's outputs (its STEP.out and the files it writes) into the one workspace the grader reads,
    with the SQL that wrote them (as it ran, retargeted): the grader holds an output against its SQL file."""
    for step in lab.steps:
        root = roots.get(step.id)
        if root is None:
            continue
        for name in (step.out_file, *step.writes, step.sql_file, lab.init_file):
            source = root / lab.name / name
            if source.is_file() and not source.is_symlink():
                shutil.copyfile(source, workspace / name)


def _explain(checks: list[CheckResult], outcomes: dict[str, StepOutcome]) -> list[CheckResult]:
    """A step that timed out or was refused: its failed checks say so (not "STEP.out is missing"), and a step
    without checks of its own gets a 0-point line, so the learner reads why."""
    explained = []
    said: set[str] = set()
    for check in checks:
        outcome = outcomes.get(check.step)
        if outcome is not None and not check.passed and outcome.status in ("timed out", "refused"):
            hint = TIMEOUT_HINT if outcome.status == "timed out" else REFUSED_HINT
            check = dataclasses.replace(check, message=outcome.error, hint=hint)
            said.add(check.step)
        explained.append(check)
    for step_id, outcome in outcomes.items():
        if outcome.status in ("timed out", "refused") and step_id not in said:
            hint = TIMEOUT_HINT if outcome.status == "timed out" else REFUSED_HINT
            explained.insert(0, CheckResult(name=f"{step_id}: ran in the grader", points=0, passed=False,
                                            message=outcome.error, hint=hint, step=step_id))
    return explained


def grade_submission(settings: Settings, lab: Lab, submission: Path, *, step_timeout: float = DEFAULT_STEP_TIMEOUT,
                     rest_url: str | None = None, learner: str = "", progress: Callable[[str], None] | None = None,
                     keep: Path | None = None) -> GradeResult:
    """Grade the SQL in `submission` by running it (see the module's docstring).

    Returns a not-gradable GradeResult when the submission is not a readable directory holding one of the lab's
    step files; raises FlinklabError when no cluster can be had. `keep` (a new directory) receives the private
    workspace the grader read (the outputs, plans and report.json of the run) for a teacher to look at.
    """
    say = progress or (lambda _message: None)
    started = time.monotonic()
    learner = learner or submission.resolve().name
    try:
        taken = read_submission(lab, submission)
    except FlinklabError as exc:  # not a directory, unreadable: not gradable (PrairieLearn spends no attempt)
        return GradeResult(lab=lab.name, gradable=False, message=exc.message, learner=learner,
                           seconds=time.monotonic() - started)
    refusal = not_gradable(lab, taken, learner)
    if refusal is not None:
        refusal.seconds = time.monotonic() - started
        return refusal
    scratch = Path(tempfile.mkdtemp(prefix="flinklab-grade-"))  # 0700: the learner's SQL is nobody else's
    try:
        workspace = scratch / "workspace" / lab.name
        workspace.mkdir(parents=True)
        roots, outcomes = _prepare(lab, taken, settings, scratch)
        if roots:
            with grading_cluster(settings, lab, rest_url, say, scratch) as (cluster_settings, client_for):
                outcomes.update(_run_steps(cluster_settings, lab, roots, client_for, step_timeout,
                                           settings.run_parallel))
        _gather(lab, roots, workspace)
        report = _write_report(lab, workspace)
        grading = dataclasses.replace(settings, workspace_root=workspace.parent)
        checks = _explain(list(grade_lab(grading, lab).results), outcomes)
        if keep is not None:
            shutil.copytree(workspace, keep)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    notes = [f"{name} not taken: {why}" for name, why in taken.skipped.items()]
    if report:
        notes.append(report)
    return GradeResult(lab=lab.name, gradable=True, checks=checks,
                       steps=[outcomes[s.id] for s in lab.steps if s.id in outcomes],
                       message="; ".join(notes), seconds=time.monotonic() - started, learner=learner)


def _write_report(lab: Lab, workspace: Path) -> str:
    """report.json from the outputs, as `flinklab run` writes it; why not, when it could not be written."""
    from flinklab.usecases.run import LabRun
    from flinklab.usecases.run_report import write_report

    run = LabRun(lab=lab, workspace=workspace, solution=False)
    write_report(lab, workspace, run)
    return f"report.json not written: {run.report_error}" if run.report_error else ""
