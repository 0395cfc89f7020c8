"""The `flink-up` / `flink-down` use cases: everything around a backend's `up` and `down`, once, for every backend.

`bring_up` is a short list of steps on purpose; a new step (e.g. starting the SQL gateway process) is one more line
in it, not a change to any backend:

1. choose the backend (flinklab.cluster.select: explicit, recorded, or auto from the registry);
2. provision the lab data into the data dir, when the cluster reads it from this host (backends know no lab);
3. start the SQL gateway process unless a healthy one runs (flinklab.gateway.process): its JVM warms up while
4. `backend.up()` starts, repairs or attaches to the cluster and waits until it is ready;
5. wait until the gateway answers. A failed cluster start stops the gateway it started; `bring_down` stops the
   gateway before the cluster.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from flinklab.cluster.base import ClusterBackend, ProgressFn, RecordUnreadable, UpResult, read_record
from flinklab.cluster.select import backend_for, stop_cluster
from flinklab.gateway import process as gateway
from flinklab.labs.provision import provision_data
from flinklab.settings import Settings


def _quiet(message: str) -> None:
    """A ProgressFn that says nothing."""


def bring_up(settings: Settings, progress: ProgressFn | None = None, *, with_gateway: bool = True) -> UpResult:
    """Choose the backend, provision the lab data where the cluster reads it, start (or attach to) the cluster.

    `progress` hears every step, the chosen backend first (`backend: NAME (why)`). `with_gateway=False` (or a
    gateway port of 0) leaves the SQL gateway alone. Errors are FlinklabErrors
    (one line); a failed start leaves no record behind (each backend's `up` cleans up what it started)."""
    say = progress or _quiet
    backend, reason = backend_for(settings)
    say(f"backend: {backend.name} ({reason})")
    copied = provision(settings, backend, say)
    # the gateway needs the cluster's REST endpoint only when a session opens: it starts now, in parallel
    gateway_proc = gateway.ensure_started(settings) if with_gateway and settings.gateway_port else None
    if gateway_proc is not None:
        say(f"starting the SQL gateway on {settings.gateway_url}")
    try:
        result = backend.up(progress=say)
    except BaseException:
        if gateway_proc is not None:
            gateway.stop(settings)
        raise
    if gateway_proc is not None:
        say("waiting for the SQL gateway")
        gateway.wait_ready(settings, gateway_proc, settings.startup_timeout)
        if result.already_running:
            result.already_running = False
            result.repaired.append("the SQL gateway")
    result.reason = result.reason or reason
    result.copied = [str(path) for path in copied]
    return result


def provision(settings: Settings, backend: ClusterBackend, say: ProgressFn) -> list[Path]:
    """Copy the lab data into the data dir when `backend`'s cluster reads it from this host; return what was
    copied. A cluster elsewhere (remote) must already have it: its `up` checks that instead."""
    if not backend.reads_local_data:
        return []
    copied = provision_data(settings)
    if copied:
        say(f"copied {len(copied)} data file(s) to {settings.data_dir}")
    return copied


@dataclass
class DownResult:
    backend: str
    done: bool  # something was stopped (or detached from)
    stopped: bool  # the cluster's processes were stopped (False for a detached remote cluster: it keeps running)
    rest_url: str = ""


def bring_down(settings: Settings, say: ProgressFn | None = None) -> DownResult:
    """Stop what `flink-up` started, or detach from a remote cluster (which keeps running)."""
    try:
        record = read_record(settings)
    except RecordUnreadable:
        record = None  # stop_cluster reports and removes it
    if gateway.stop(settings):
        (say or _quiet)("stopped the SQL gateway")
    backend, done = stop_cluster(settings, say=say or _quiet)
    return DownResult(backend=backend.name, done=done, stopped=done and backend.owns_cluster,
                      rest_url=record.rest_url if record else "")
