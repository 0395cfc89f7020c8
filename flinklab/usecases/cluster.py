"""The `flink-up` / `flink-down` use cases: everything around a backend's `up` and `down`, once, for every backend.

`bring_up` is a short list of steps on purpose; a new step is one more line in it, not a change to any backend:

1. choose the backend (flinklab.environment.select: explicit, recorded, or auto from the registry);
2. provision the lab data into the data dir, when the cluster reads it from this host (backends know no lab), or
   give a remote backend the data probe it runs before it records the attachment;
3. start the SQL gateway process unless a healthy one runs (flinklab.environment.gateway.GatewayProcess, the
   shape of a backend): its JVM warms up while
4. `backend.up()` starts, repairs or attaches to the cluster and waits until it is ready;
5. wait until the gateway answers (its planner is warm by then), and have it warm the cluster up unless a job ran
   there already (two tiny jobs: the first task of a TaskManager loads and compiles what every later one finds
   ready); flink-up returns once they ended (at most WARM_UP_WAIT), so the first query is a warm one (the rest of
   the planner's warm-up goes on in the background, giving way to every statement). A failed
   cluster start stops the gateway it started; `bring_down` stops the gateway before the cluster.

What happens is told as typed events (flinklab.cluster.progress and the ones below) to a `ProgressFn`; the face
draws them. Both hold a lock on `state_dir/flinklab.lock` (fcntl.flock: the kernel drops it when the holder dies),
so two `flink-up` on one state dir never start two clusters or two gateways: the second waits, then finds the
first's cluster running. Ctrl-C (or any failure) during a fresh start leaves nothing of it behind: no JVM, no
gateway, no record. A repaired gateway's orphaned queries (jobs whose results only the dead gateway could fetch)
are cancelled.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from flinklab.cluster.base import RecordUnreadable, UpResult, read_record
from flinklab.cluster.progress import Progress, ProgressFn, Step, Waiting, quiet
from flinklab.environment.gateway import GatewayProcess, cancel_orphaned_queries
from flinklab.environment.provision import provision, set_data_probe
from flinklab.environment.select import backend_for, stop_cluster
from flinklab.errors import ClusterError, UsageError
from flinklab.flink.waiting import Wait
from flinklab.settings import Settings

# ---- the events of up and down (beside the backends' Step / Waiting / LayerPulled) ------------------------------


@dataclass(frozen=True)
class BackendChosen(Progress):
    """The backend `flink-up` uses, why (one calm line), and the detail behind the why (a registry's DNS error...)."""

    name: str
    why: str
    detail: str = ""

    def __str__(self) -> str:
        return f"backend: {self.name} ({self.why})"


@dataclass(frozen=True)
class DataCopied(Progress):
    """Lab data files copied into the data dir."""

    count: int
    data_dir: str

    def __str__(self) -> str:
        return f"copied {self.count} data file(s) to {self.data_dir}"


@dataclass(frozen=True)
class GatewayStarting(Progress):
    url: str

    def __str__(self) -> str:
        return f"starting the SQL gateway on {self.url}"


@dataclass(frozen=True)
class WarmingUp(Progress):
    def __str__(self) -> str:
        return "warming the cluster up (its first job)"


@dataclass(frozen=True)
class WarmUpGoesOn(Progress):
    """flink-up returns before the warm-up ended (`failed`: it did not run): the first query may be slower."""

    failed: bool = False

    def __str__(self) -> str:
        if self.failed:
            return "the cluster's warm-up did not run (the gateway's log says why): the first query may be slower"
        return "the cluster's warm-up goes on in the background: the first query may be slower"


@dataclass(frozen=True)
class QueriesCancelled(Progress):
    count: int

    def __str__(self) -> str:
        return f"cancelled {self.count} query job(s) of the dead SQL gateway"


@dataclass(frozen=True)
class LockWaiting(Progress):
    def __str__(self) -> str:
        return "another flink-up is running, waiting…"


@dataclass(frozen=True)
class GatewayStopped(Progress):
    def __str__(self) -> str:
        return "stopped the SQL gateway"


WAITING_MESSAGE = str(LockWaiting())


def lock_file(settings: Settings) -> Path:
    return settings.state_dir / "flinklab.lock"


@contextlib.contextmanager
def state_lock(settings: Settings, say: ProgressFn, timeout: float | None = None) -> Iterator[None]:
    """Hold this state dir's lock; while another `flink-up`/`flink-down` holds it, say so once (LockWaiting) and
    wait (at most `timeout` seconds, default: two start-up timeouts), then ClusterError naming the holder's pid."""
    path = lock_file(settings)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+")  # noqa: SIM115 - held for the whole use case
    except OSError as exc:
        raise ClusterError(f"The state dir {settings.state_dir} is not writable ({exc.strerror or exc}).",
                           "Set FLINKLAB_STATE_DIR to a writable directory.") from None
    with handle:

        def locked() -> bool:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            return True

        limit = 2 * settings.startup_timeout + 60 if timeout is None else timeout
        if not Wait("the state dir's lock", limit, 0.2).poll(locked, waiting=lambda: say(LockWaiting())):
            handle.seek(0)
            holder = handle.read().strip() or "?"
            raise ClusterError(f"Another flink-up/flink-down (pid {holder}) has held {path} for too long.",
                               "Wait for it to finish, or stop it (Ctrl-C in its terminal).") from None
        try:
            handle.seek(0)
            handle.truncate()
            handle.write(f"{os.getpid()}\n")
            handle.flush()
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def _no_interrupt() -> Iterator[None]:
    """Clean-up must finish: a second Ctrl-C while it runs is ignored (only the main thread can set this)."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: nothing to defer
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def bring_up(settings: Settings, progress: ProgressFn | None = None, *, data_files: Sequence[Path],
             with_gateway: bool = True) -> UpResult:
    """Choose the backend, provision the lab data where the cluster reads it, start (or attach to) the cluster.

    `progress` hears every step as a typed event, the chosen backend first (BackendChosen). `with_gateway=False`
    (or a gateway port of 0) leaves the SQL gateway alone. Errors are FlinklabErrors (one line); a failed or
    interrupted start leaves nothing it started behind (each backend's `up` cleans up its part, this its gateway
    and, when the cluster was started afresh here, the cluster). Another `up`/`down` on the state dir is waited for.
    `data_files` are the lab data (every lab's CSVs: flinklab.course.data.lab_data_files), copied or probed."""
    say = progress or quiet
    with state_lock(settings, say):
        return _bring_up_locked(settings, say, with_gateway, data_files)


def _bring_up_locked(settings: Settings, say: ProgressFn, with_gateway: bool,
                     data_files: Sequence[Path]) -> UpResult:
    backend, reason = backend_for(settings)
    if settings.shared and not backend.mutual_tls:
        raise UsageError(f"--shared (the REST API behind mutual TLS) is for the local backend, not {backend.name}.",
                         "Use `--backend local --shared`, or leave --shared out.")
    reason, _, detail = reason.partition("\n")
    say(BackendChosen(backend.name, reason, detail))
    copied = provision(settings, backend, data_files)
    if copied:
        say(DataCopied(len(copied), str(settings.data_dir)))
    gateway = GatewayProcess(settings) if with_gateway and settings.gateway_port else None
    started_gateway = fresh_cluster = False
    had_gateway = gateway is not None and gateway.status().healthy
    try:
        # the gateway needs the cluster's REST endpoint only when a session opens: it starts now, in parallel
        if gateway is not None:
            started_gateway = gateway.start()
            if started_gateway:
                say(GatewayStarting(settings.gateway_url))

            def ready_gateway() -> str:  # an attached cluster's data is probed through this gateway: no second JVM
                _gateway_ready(gateway, say)
                return settings.gateway_url

            set_data_probe(settings, backend, data_files, ready_gateway)
        result = backend.up(progress=say)
        fresh_cluster = backend.owns_cluster and not result.already_running and not result.repaired
        if gateway is not None:
            _gateway_ready(gateway, say)
    except BaseException as exc:
        with _no_interrupt():
            if gateway is not None and not had_gateway:
                gateway.down()  # also one interrupted before its pid file was written
            # Ctrl-C (or a bug) after a fresh start: nothing half-started stays. A gateway that failed on its own
            # (ClusterError) leaves the healthy cluster running: the next `flink-up` only repairs the gateway.
            if fresh_cluster and not isinstance(exc, ClusterError):
                say(Step("interrupted: stopping the cluster this flink-up started"))
                stop_cluster(settings)
        raise
    if gateway is not None and backend.owns_cluster:
        _warm_up(gateway, result.status.rest_url, gateway.settings.data_dir if backend.reads_local_data else None,
                 min(WARM_UP_WAIT, gateway.settings.startup_timeout), say)
    if started_gateway:
        if not fresh_cluster:  # the cluster outlived a dead gateway: its queries can never be fetched now
            cancelled = cancel_orphaned_queries(result.status.rest_url, settings.state_dir)
            if cancelled:
                say(QueriesCancelled(len(cancelled)))
        if result.already_running:
            result.already_running = False
            result.repaired.append("the SQL gateway")
    result.reason = result.reason or reason
    result.copied = [str(path) for path in copied]
    return result


def _gateway_ready(gateway: GatewayProcess, say: ProgressFn) -> None:
    """Wait for the gateway this flink-up started, saying so (once: a second call finds it ready)."""
    if gateway.starting:
        say(Waiting("the SQL gateway"))
    gateway.ready()


#: The longest flink-up waits for the cluster's warm-up (seconds); it goes on in the gateway's background after.
WARM_UP_WAIT = 60.0


def _warm_up(gateway: GatewayProcess, rest_url: str, data_dir: Path | None, timeout: float,
             say: ProgressFn) -> None:
    """Two tiny jobs on the cluster at `rest_url` if it ran none yet (over a CSV file in `data_dir`, which its
    TaskManagers read, if given): flink-up returns once they ended (the learner's first query then costs about what
    a later one does), or after `timeout` at most; Ctrl-C (or the timeout) ends only the wait: the cluster is up."""
    if gateway.warm_cluster(rest_url, data_dir) != "running":
        return
    say(WarmingUp())
    try:
        state = gateway.wait_warm(timeout)
    except KeyboardInterrupt:
        state = "interrupted"
    if state in ("running", "interrupted", "failed"):
        say(WarmUpGoesOn(failed=state == "failed"))


@dataclass(frozen=True)
class Archiving(Progress):
    def __str__(self) -> str:
        return "making the class-data archives (the classes every later start maps instead of loading)"


@dataclass(frozen=True)
class Recording(Progress):
    def __str__(self) -> str:
        return "starting the cluster once more, to record the command lines that map them"


@dataclass
class Prepared:
    """What `prepare` did: `done` False when a cluster already ran on the state dir (nothing started or stopped);
    `complete` False when the archives were not made within PREPARE_WAIT (the next starts make them)."""

    done: bool
    seconds: float
    complete: bool = True


#: The longest `prepare` waits for the archives (each dump takes ~10 s on 2 cores, at the lowest CPU priority)
PREPARE_WAIT = 300.0


def prepare(settings: Settings, progress: ProgressFn | None = None, *, data_files: Sequence[Path]) -> Prepared:
    """What `scripts/install.sh` runs once (`flinklab prepare`), so that the first real `flink-up` starts as fast as
    every later one instead of paying for what a first start does: start the local cluster and its SQL gateway as
    flink-up does (their JVMs list the classes they load, the warm-ups run), wait until every class-data archive is
    made (the cluster's JVMs', flinklab.cluster.local_cds; the gateway's at once, flinklab.gateway.jvm_archive, not
    ARCHIVE_QUIET seconds after its warm-ups), stop, then start and stop the cluster once more without the gateway,
    which records the JVM command lines that map the archives (flinklab.cluster.launch). It uses the settings'
    own state dir, cache dir and ports: those the learner's flink-up uses. A cluster already running there is left
    alone (its start made them). Errors are the ones flink-up raises; whatever it started is stopped."""
    from flinklab.environment.serve_gateway import ARCHIVE_QUIET_ENV

    say = progress or quiet
    settings = settings.with_overrides(backend="local")
    started = time.monotonic()
    backend, _ = backend_for(settings)
    if backend.status().running:
        return Prepared(done=False, seconds=0.0)
    saved = os.environ.get(ARCHIVE_QUIET_ENV)
    os.environ[ARCHIVE_QUIET_ENV] = "0"  # the gateway flink-up starts dumps as soon as its warm-ups end
    try:
        bring_up(settings, say, data_files=data_files)
    finally:
        if saved is None:
            os.environ.pop(ARCHIVE_QUIET_ENV, None)
        else:
            os.environ[ARCHIVE_QUIET_ENV] = saved
    try:
        gateway = GatewayProcess(settings)
        made = Wait("the class-data archives", PREPARE_WAIT, 0.5).poll(
            lambda: not backend.settling() and not gateway.settling(), waiting=lambda: say(Archiving()))
    finally:
        bring_down(settings, say)
    if made:
        say(Recording())
        try:
            bring_up(settings, say, data_files=data_files, with_gateway=False)
        finally:
            bring_down(settings, say)
    return Prepared(done=True, complete=bool(made), seconds=time.monotonic() - started)


@dataclass
class DownResult:
    backend: str
    done: bool  # something was stopped (or detached from)
    stopped: bool  # the cluster's processes were stopped (False for a detached remote cluster: it keeps running)
    rest_url: str = ""
    #: the backend stops what it started (False: `down` only forgets an attachment): the face asks this, never a name
    owns_cluster: bool = True


def bring_down(settings: Settings, say: ProgressFn | None = None) -> DownResult:
    """Stop what `flink-up` started, or detach from a remote cluster (which keeps running). Waits for another
    `flink-up`/`flink-down` on the state dir first."""
    say = say or quiet
    with state_lock(settings, say):
        try:
            record = read_record(settings)
        except RecordUnreadable:
            record = None  # stop_cluster reports and removes it
        if GatewayProcess(settings).down():
            say(GatewayStopped())
        backend, done = stop_cluster(settings, say=say)
        return DownResult(backend=backend.name, done=done, stopped=done and backend.owns_cluster,
                          rest_url=record.rest_url if record else "", owns_cluster=backend.owns_cluster)
