"""A cluster's readiness as conditions (testcontainers style): each checks one thing over REST; `wait_until` polls
them with a flinklab.flink.waiting.Wait.

A condition is backend-agnostic: it sees only a :class:`FlinkRest`. The backend passes two callables: `diagnostics`
(which log file and its last lines, for the component a wait concerns) and optionally `abort` (a process died:
stop waiting now instead of at the timeout). On failure the error names what was not ready, what was seen last and
where the log is; the log's last lines ride along on the exception for the CLI to print.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import NoReturn

from flinklab.flink.rest import FlinkRest, RestUnavailable
from flinklab.flink.waiting import POLL_INTERVAL, ClusterStartError, Wait, one_line

JOBMANAGER = "jobmanager"
TASKMANAGER = "taskmanager"


@dataclass
class Diagnostics:
    """Where a component's log is (a path, or a command like `docker logs X`) and its last lines."""

    log: str
    tail: list[str] = field(default_factory=list)


DiagnosticsFn = Callable[[str], Diagnostics]
#: Returns (component, reason) when waiting is pointless (e.g. the JobManager process exited), else None.
AbortFn = Callable[[], "tuple[str, str] | None"]


class Condition:
    """One readiness condition. `check` returns (ready, what was observed) and never raises for 'not yet'."""

    component: str = JOBMANAGER
    description: str = "ready"

    def check(self, rest: FlinkRest) -> tuple[bool, str]:
        raise NotImplementedError

    def __and__(self, other: Condition) -> AllOf:
        return AllOf([*_flatten(self), *_flatten(other)])


def _flatten(wait: Condition) -> list[Condition]:
    return list(wait.waits) if isinstance(wait, AllOf) else [wait]


class AllOf(Condition):
    """Waits checked in order; the first that is not ready is the one reported."""

    def __init__(self, waits: Iterable[Condition]):
        self.waits = list(waits)
        if self.waits:
            self.component, self.description = self.waits[0].component, self.waits[0].description

    def check(self, rest: FlinkRest) -> tuple[bool, str]:
        for wait in self.waits:
            ready, seen = wait.check(rest)
            if not ready:
                self.component, self.description = wait.component, wait.description
                return False, seen
        return True, "ready"


class RestAnswers(Condition):
    """GET /overview answers with JSON."""

    component = JOBMANAGER
    description = "the REST endpoint to answer"

    def check(self, rest: FlinkRest) -> tuple[bool, str]:
        try:
            rest.overview()
        except RestUnavailable as exc:
            return False, f"no answer from {rest.base_url}/overview ({one_line(exc)})"
        return True, "answers"


class TaskManagersRegistered(Condition):
    """At least `n` TaskManagers with `n * slots_each` slots registered (and free, unless `require_free=False`).

    `require_free=False` is for repairs: jobs that are running legitimately hold slots.
    """

    component = TASKMANAGER

    def __init__(self, n: int, slots_each: int, require_free: bool = True):
        self.n, self.slots_each, self.require_free = n, slots_each, require_free
        self.description = f"{n} TaskManager(s) with {n * slots_each} slots to register"

    def check(self, rest: FlinkRest) -> tuple[bool, str]:
        try:
            ov = rest.overview()
        except RestUnavailable as exc:
            return False, f"REST stopped answering ({one_line(exc)})"
        tms, total, free = ov.get("taskmanagers", 0), ov.get("slots-total", 0), ov.get("slots-available", 0)
        want = self.n * self.slots_each
        seen = f"{tms} TaskManager(s), {total} slots ({free} free) registered"
        ready = tms >= self.n and total >= want and (free >= want or not self.require_free)
        return ready, seen


class NewTaskManagers(Condition):
    """`count` TaskManagers registered whose ids were not registered before (a restarted TM is new to the JM).

    After a TM is killed the JobManager keeps it listed until its heartbeat times out, so counting TMs alone would
    call a repair done before the replacement registered.
    """

    component = TASKMANAGER

    def __init__(self, before_ids: Iterable[str], count: int):
        self.before_ids, self.count = set(before_ids), count
        self.description = f"{count} restarted TaskManager(s) to register"

    def check(self, rest: FlinkRest) -> tuple[bool, str]:
        try:
            ids = {tm.get("id", "") for tm in rest.taskmanagers()}
        except RestUnavailable as exc:
            return False, f"REST stopped answering ({one_line(exc)})"
        new = ids - self.before_ids
        return len(new) >= self.count, f"{len(new)} new TaskManager(s) registered"


def wait_until(
    rest: FlinkRest,
    wait: Condition,
    *,
    timeout: float,
    diagnostics: DiagnosticsFn,
    abort: AbortFn | None = None,
    poll_interval: float = POLL_INTERVAL,
    progress: Callable[[str], None] | None = None,
) -> float:
    """Poll `wait` until ready; return the seconds it took. Raise ClusterStartError on timeout or abort; `progress`
    hears what is awaited (words completing "waiting for ...") once per condition that was not ready at once."""
    said: set[str] = set()
    seen = ""

    def check() -> bool | None:
        nonlocal seen
        ready, seen = wait.check(rest)
        if ready:
            return True
        if progress is not None and wait.description not in said:
            said.add(wait.description)
            progress(wait.description)
        if abort is not None:
            aborted = abort()
            if aborted is not None:
                component, reason = aborted
                _fail(f"{reason} while waiting for {wait.description}", component, diagnostics)
        return None

    start = time.monotonic()
    if Wait(wait.description, timeout, poll_interval).poll(check) is None:
        _fail(f"Timed out after {timeout:.0f}s waiting for {wait.description}: {seen}", wait.component, diagnostics)
    return time.monotonic() - start


def _fail(message: str, component: str, diagnostics: DiagnosticsFn) -> NoReturn:
    diag = diagnostics(component)
    raise ClusterStartError(
        f"{message}. Log: {diag.log}",
        "Read the log's last lines above; `flinklab logs` shows more.",
        log_path=diag.log,
        log_tail=diag.tail,
    )
