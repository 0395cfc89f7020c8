"""The `flink-up` / `flink-down` use cases: everything around a backend's `up` and `down`, once, for every backend.

`bring_up` is a short list of steps on purpose; a new step (e.g. starting the SQL gateway process) is one more line
in it, not a change to any backend:

1. choose the backend (flinklab.environment.select: explicit, recorded, or auto from the registry);
2. provision the lab data into the data dir, when the cluster reads it from this host (backends know no lab), or
   give a remote backend the data probe it runs before it records the attachment;
3. start the SQL gateway process unless a healthy one runs (flinklab.environment.gateway): its JVM warms up while
4. `backend.up()` starts, repairs or attaches to the cluster and waits until it is ready;
5. wait until the gateway answers (its planner is warm by then), and have it warm the cluster up unless a job ran
   there already (one tiny job: the first task of a TaskManager loads and compiles what every later one finds
   ready); flink-up returns once the warm-ups ended (at most WARM_UP_WAIT), so the first query is a warm one. A failed
   cluster start stops the gateway it started; `bring_down` stops the gateway before the cluster.

Both hold a lock on `state_dir/flinklab.lock` (fcntl.flock: the kernel drops it when the holder dies), so two
`flink-up` on one state dir never start two clusters or two gateways: the second waits, then finds the first's
cluster running. Ctrl-C (or any failure) during a fresh start leaves nothing of it behind: no JVM, no gateway, no
record. A repaired gateway's orphaned queries (jobs whose results only the dead gateway could fetch) are cancelled.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from flinklab.cluster.base import ClusterBackend, ProgressFn, RecordUnreadable, UpResult, read_record
from flinklab.environment import gateway
from flinklab.environment.provision import provision_data
from flinklab.environment.select import backend_for, stop_cluster
from flinklab.errors import ClusterError, UsageError
from flinklab.settings import Settings

WAITING_MESSAGE = "another flink-up is running, waiting…"


def _quiet(message: str) -> None:
    """A ProgressFn that says nothing."""


def lock_file(settings: Settings) -> Path:
    return settings.state_dir / "flinklab.lock"


@contextlib.contextmanager
def state_lock(settings: Settings, say: ProgressFn, timeout: float | None = None) -> Iterator[None]:
    """Hold this state dir's lock; while another `flink-up`/`flink-down` holds it, say so once and wait (at most
    `timeout` seconds, default: two start-up timeouts), then ClusterError naming the holder's pid."""
    path = lock_file(settings)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+")  # noqa: SIM115 - held for the whole use case
    except OSError as exc:
        raise ClusterError(f"The state dir {settings.state_dir} is not writable ({exc.strerror or exc}).",
                           "Set FLINKLAB_STATE_DIR to a writable directory.") from None
    with handle:
        deadline = time.monotonic() + (2 * settings.startup_timeout + 60 if timeout is None else timeout)
        waiting = False
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not waiting:
                    say(WAITING_MESSAGE)
                    waiting = True
                if time.monotonic() > deadline:
                    handle.seek(0)
                    holder = handle.read().strip() or "?"
                    raise ClusterError(f"Another flink-up/flink-down (pid {holder}) has held {path} for too long.",
                                       "Wait for it to finish, or stop it (Ctrl-C in its terminal).") from None
                time.sleep(0.2)
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

    `progress` hears every step, the chosen backend first (`backend: NAME (why)`, then on further lines the
    detail behind the why, if any). `with_gateway=False` (or a gateway port of 0) leaves the SQL gateway alone.
    Errors are FlinklabErrors (one line); a failed or interrupted start leaves nothing it started behind (each
    backend's `up` cleans up its part, this its gateway and, when the cluster was started afresh here, the
    cluster). Another `up`/`down` on the state dir is waited for.
    `data_files` are the lab data (every lab's CSVs: flinklab.course.data.lab_data_files), copied or probed."""
    say = progress or _quiet
    with state_lock(settings, say):
        return _bring_up_locked(settings, say, with_gateway, data_files)


def _bring_up_locked(settings: Settings, say: ProgressFn, with_gateway: bool,
                     data_files: Sequence[Path]) -> UpResult:
    backend, reason = backend_for(settings)
    if settings.shared and not backend.mutual_tls:
        raise UsageError(f"--shared (the REST API behind mutual TLS) is for the local backend, not {backend.name}.",
                         "Use `--backend local --shared`, or leave --shared out.")
    reason, _, detail = reason.partition("\n")
    # one calm line; the detail behind it (a registry's DNS error, say) rides on it for `flink-up --verbose`
    say(f"backend: {backend.name} ({reason})" + (f"\n{detail}" if detail else ""))
    copied = provision(settings, backend, say, data_files)
    gateway_proc = None
    fresh_cluster = False
    wants_gateway = with_gateway and bool(settings.gateway_port)
    had_gateway = wants_gateway and gateway.gateway_state(settings).healthy
    try:
        # the gateway needs the cluster's REST endpoint only when a session opens: it starts now, in parallel
        if wants_gateway:
            gateway_proc = gateway.ensure_started(settings)
        if gateway_proc is not None:
            say(f"starting the SQL gateway on {settings.gateway_url}")
        if wants_gateway:  # an attached cluster's data is probed through this gateway: no second JVM

            def ready_gateway() -> str:
                if gateway_proc is not None:
                    say("waiting for the SQL gateway")
                    gateway.wait_ready(settings, gateway_proc, settings.startup_timeout)
                return settings.gateway_url

            set_data_probe(settings, backend, data_files, ready_gateway)
        result = backend.up(progress=say)
        fresh_cluster = backend.owns_cluster and not result.already_running and not result.repaired
        if gateway_proc is not None:
            say("waiting for the SQL gateway")
            gateway.wait_ready(settings, gateway_proc, settings.startup_timeout)
    except BaseException as exc:
        with _no_interrupt():
            if wants_gateway and not had_gateway:
                gateway.stop(settings)  # also one interrupted before its pid file was written
            # Ctrl-C (or a bug) after a fresh start: nothing half-started stays. A gateway that failed on its own
            # (ClusterError) leaves the healthy cluster running: the next `flink-up` only repairs the gateway.
            if fresh_cluster and not isinstance(exc, ClusterError):
                say("interrupted: stopping the cluster this flink-up started")
                stop_cluster(settings)
        raise
    if wants_gateway and backend.owns_cluster:
        # two tiny jobs on a cluster that ran none yet: flink-up returns once they and the planner's warm-up ended
        # (the learner's first query then costs about what a later one does: 0.9 s, not 11 s, after a first start),
        # or after WARM_UP_WAIT at most
        data_dir = settings.data_dir if backend.reads_local_data else None
        if gateway.warm_cluster(settings, result.status.rest_url, data_dir) == "running":
            say("warming the cluster up (its first job)")
            _wait_warm(settings, say)
    if gateway_proc is not None:
        if not fresh_cluster:  # the cluster outlived a dead gateway: its queries can never be fetched now
            cancelled = gateway.cancel_orphaned_queries(result.status.rest_url, settings.state_dir)
            if cancelled:
                say(f"cancelled {len(cancelled)} query job(s) of the dead SQL gateway")
        if result.already_running:
            result.already_running = False
            result.repaired.append("the SQL gateway")
    result.reason = result.reason or reason
    result.copied = [str(path) for path in copied]
    return result


#: The longest flink-up waits for the cluster's warm-up (seconds); it goes on in the gateway's background after.
WARM_UP_WAIT = 60.0


def _wait_warm(settings: Settings, say: ProgressFn) -> None:
    """Wait for the gateway's warm-ups; Ctrl-C (or the WARM_UP_WAIT) ends only the wait: the cluster is up."""
    try:
        state = gateway.wait_warm(settings, min(WARM_UP_WAIT, settings.startup_timeout))
    except KeyboardInterrupt:
        state = "interrupted"
    if state in ("running", "interrupted"):
        say("the cluster's warm-up goes on in the background: the first query may be slower")
    elif state == "failed":
        say("the cluster's warm-up did not run (the gateway's log says why): the first query may be slower")


def provision(settings: Settings, backend: ClusterBackend, say: ProgressFn,
              data_files: Sequence[Path]) -> list[Path]:
    """Copy the lab data into the data dir when `backend`'s cluster reads it from this host; return what was
    copied. A cluster elsewhere (remote) must already have it: its `up` checks that instead, with the data probe
    given here (through a gateway of this process; `_bring_up_locked` replaces it with one through the SQL
    gateway it starts)."""
    if not backend.reads_local_data:
        set_data_probe(settings, backend, data_files, None)
        return []
    copied = provision_data(settings, data_files)
    if copied:
        say(f"copied {len(copied)} data file(s) to {settings.data_dir}")
    return copied


def set_data_probe(settings: Settings, backend: ClusterBackend, data_files: Sequence[Path],
                   gateway_url: Callable[[], str] | None) -> None:
    """Give an attaching backend its data probe: through the gateway `gateway_url()` names (None: one started in
    this process for the probe)."""
    if not backend.reads_local_data and hasattr(backend, "data_probe"):
        from flinklab.environment.dataprobe import probe_lab_data

        backend.data_probe = lambda url: probe_lab_data(settings, url, data_files, gateway_url)


@dataclass
class DownResult:
    backend: str
    done: bool  # something was stopped (or detached from)
    stopped: bool  # the cluster's processes were stopped (False for a detached remote cluster: it keeps running)
    rest_url: str = ""


def bring_down(settings: Settings, say: ProgressFn | None = None) -> DownResult:
    """Stop what `flink-up` started, or detach from a remote cluster (which keeps running). Waits for another
    `flink-up`/`flink-down` on the state dir first."""
    with state_lock(settings, say or _quiet):
        return _bring_down_locked(settings, say)


def _bring_down_locked(settings: Settings, say: ProgressFn | None) -> DownResult:
    try:
        record = read_record(settings)
    except RecordUnreadable:
        record = None  # stop_cluster reports and removes it
    if gateway.stop(settings):
        (say or _quiet)("stopped the SQL gateway")
    backend, done = stop_cluster(settings, say=say or _quiet)
    return DownResult(backend=backend.name, done=done, stopped=done and backend.owns_cluster,
                      rest_url=record.rest_url if record else "")
