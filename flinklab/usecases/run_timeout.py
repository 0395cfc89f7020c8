"""A run's step timeout (`flinklab run --step-timeout`): a step that runs past it is stopped alone, its Flink job
cancelled, and the run goes on with the other steps.

A client is stopped by aborting it (SqlClient.abort: every call through it raises from then on, and the operation's
clean-up call, which cancels its Flink job, still goes out). Steps that run at once share a client, so with a
timeout each step runs on a client of its own (`StepClients`): aborting a step that ran out of time stops nobody
else. `flinklab grade` times its steps the same way (each with its own client).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from flinklab.errors import FlinklabError, NoClusterError
from flinklab.flink.sql_split import split_statements, strip_comments
from flinklab.lab_api import Lab, Step
from flinklab.sqlclient.watch import ClusterWatch

if TYPE_CHECKING:
    from flinklab.sqlclient.client import SqlClient

#: `flinklab run`'s default: a lab's step ends in seconds on its data; a query that never ends is stopped in minutes
DEFAULT_STEP_TIMEOUT = 300.0
#: the option of a source that makes it unbounded (the filesystem connector keeps watching its path)
UNBOUNDED_OPTION = "source.monitor-interval"

ClientFactory = Callable[[], "SqlClient"]


class StepTimedOut(FlinklabError):
    """What a step's client raises once the step ran past the run's step timeout."""

    def __init__(self, step: Step, seconds: float):
        super().__init__(f"{step.sql_file} did not finish in {seconds:g} s")


class StepClock:
    """One step's timeout, from `start()` to `stop()`: when it runs out, the step's client is aborted with
    `error()` (default StepTimedOut; `expired` says so). `flinklab grade` uses it too."""

    def __init__(self, step: Step, seconds: float, client: SqlClient,
                 error: Callable[[], BaseException] | None = None):
        self.step, self.seconds, self.client = step, seconds, client
        self.error = error or (lambda: StepTimedOut(step, seconds))
        self.expired = False
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def _expire(self) -> None:
        with self._lock:
            if self._timer is None:
                return  # the step ended first
            self.expired = True
        self.client.abort(self.error)

    def start(self) -> None:
        with self._lock:
            self._timer = threading.Timer(self.seconds, self._expire)
            self._timer.daemon = True
            self._timer.start()

    def stop(self) -> None:
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()


def _sets_unbounded(path: Path) -> bool:
    try:
        sql = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(UNBOUNDED_OPTION in strip_comments(statement) for statement in split_statements(sql))


def timed_out_line(lab: Lab, step: Step, workspace: Path, seconds: float, partial: Path | None) -> str:
    """The one line a run prints for a step that timed out: what was done, and the likely reason."""
    files = [lab.init_file] if step.uses_init else []
    unbounded = [name for name in (*files, step.sql_file) if _sets_unbounded(workspace / name)]
    if unbounded:
        why = (f"{unbounded[0]} sets '{UNBOUNDED_OPTION}', so its source never ends and a streaming query over it "
               "runs until cancelled")
    else:
        why = ("a streaming query over a source that never ends, or one waiting for a watermark that never comes, "
               "runs until cancelled")
    if step.mode == "batch":
        why += "; this step is a batch one, whose query ends: SET 'execution.runtime-mode' = 'batch';"
    kept = f"; what it printed is in {partial.name}" if partial is not None else ""
    return (f"did not finish in {seconds:g} s and was cancelled, its Flink job too: {why} ({step.out_file} is "
            f"unchanged{kept}; --step-timeout gives it longer).")


class StepClients:
    """The clients a run's steps use: the run's one `shared` client, or, with a timeout, one client per step made
    by `factory` (closed after its step), so that a step that runs out of time is aborted alone. `abort` and the
    cluster watch reach every client in use."""

    def __init__(self, shared: SqlClient, factory: ClientFactory | None):
        self.shared = shared
        self.factory = factory
        self._lock = threading.Lock()
        self._open: set[SqlClient] = set()
        self._abort: Callable[[], BaseException] | None = None

    @contextmanager
    def for_step(self) -> Iterator[SqlClient]:
        """The client a step runs on (its own one is closed after it; raises ClusterError when none can be had)."""
        if self.factory is None:
            yield self.shared
            return
        client = self.factory()
        with self._lock:
            self._open.add(client)
            aborted = self._abort
        if aborted is not None:  # the run was stopped while this client was being made
            client.abort(aborted)
        try:
            yield client
        finally:
            with self._lock:
                self._open.discard(client)
            client.close()

    def abort(self, error: Callable[[], BaseException]) -> None:
        """Stop every step at its next gateway call (`error()` is raised there), on any thread."""
        with self._lock:
            self._abort = error
            clients = [self.shared, *self._open]
        for client in clients:
            client.abort(error)

    def watching(self) -> ClusterWatch:
        """A watch on the cluster for a `with` block: when it stops answering, every client is aborted with
        NoClusterError (as SqlClient.watching does for one client)."""
        url = self.shared.cluster_url
        if self.factory is None:
            return self.shared.watching()
        return ClusterWatch(url, on_gone=lambda: self.abort(lambda: NoClusterError(str(url))),
                            rest=self.shared.cluster_rest)
