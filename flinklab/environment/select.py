"""Which backend serves a command: `up` chooses (explicit, recorded, or auto); down/status/logs use the record.

Every choice is a lookup in flinklab.cluster.registry; no backend is named here.
"""

from __future__ import annotations

import contextlib

from flinklab.cluster.base import (
    ClusterBackend,
    ClusterStatus,
    RecordUnreadable,
    fill_from_overview,
    read_record,
    remove_record,
)
from flinklab.cluster.progress import ProgressFn, Step, quiet
from flinklab.cluster.registry import backend_class, backend_names
from flinklab.errors import ClusterError
from flinklab.flink.rest import FlinkRest, RestUnavailable
from flinklab.settings import Settings


def fallback() -> str:
    """The registry's last backend: auto's fallback, and the one whose logs and strays outlive its record
    (`flinklab logs` after `flink-down`)."""
    return backend_names()[-1]


def make_backend(name: str, settings: Settings) -> ClusterBackend:
    """An instance of the backend registered as `name`."""
    return backend_class(name)(settings)


def backend_for(settings: Settings) -> tuple[ClusterBackend, str]:
    """The backend `up` should use, and why: explicit wins; `auto` follows the record, else the first backend of
    the registry that says it is usable here, else the last one (the fallback; the reason is why the one before it
    cannot serve, and the fallback's own `up` says what it misses). The reason's first line is the one `flink-up`
    prints; any further lines are the detail behind it (a backend's own words, for `--verbose`)."""
    if settings.backend != "auto":
        return make_backend(settings.backend, settings), f"--backend {settings.backend} was asked for"
    record = read_record(settings)
    if record is not None:
        return make_backend(record.backend, settings), f"a {record.backend} cluster is recorded in {settings.state_dir}"
    why = f"no other backend is registered than {fallback()}"
    for name in backend_names()[:-1]:
        try:
            cls = backend_class(name)
        except ClusterError as exc:  # not installed here
            why = exc.message
            continue
        if settings.shared and not cls.mutual_tls:
            why = f"{name} has no --shared (mutual TLS on its REST API)"
            continue
        try:
            usable, why = cls.usable(settings)
        except Exception as exc:  # noqa: BLE001 - a broken engine must not stop a local start: fall back, say why
            usable, why = False, f"the {name} check failed\n{type(exc).__name__}: {exc}"
        if usable:
            return cls(settings), why
    return make_backend(fallback(), settings), why


def recorded_backend(settings: Settings) -> ClusterBackend | None:
    """The backend of the recorded cluster (for down/status/logs), or None when nothing is recorded."""
    record = read_record(settings)
    if record is None:
        return None
    return make_backend(record.backend, settings)


def cluster_status(settings: Settings) -> ClusterStatus:
    """Status of the recorded cluster; with nothing recorded, say so (and whether a foreign cluster answers)."""
    backend = recorded_backend(settings)
    if backend is not None:
        return backend.status()
    st = ClusterStatus(backend="none", running=False, rest_url=settings.rest_url, state_dir=str(settings.state_dir))
    st.problems.append(f"no cluster started by flinklab (nothing recorded in {settings.state_dir})")
    try:
        fill_from_overview(st, FlinkRest(settings.rest_url, timeout=2).overview())
        st.problems.append(f"a Flink cluster flinklab did not start answers at {settings.rest_url}")
    except RestUnavailable:
        pass
    return st


def stop_cluster(settings: Settings, say: ProgressFn | None = None) -> tuple[ClusterBackend, bool]:
    """Stop (or detach from) the recorded cluster, or the fallback's strays; returns (backend, anything done).

    An unreadable record cannot say which backend ran, so every backend cleans up what it can find without it
    (local: processes using this state dir's config; docker: containers of this port's project; remote: nothing)
    and the record is removed, so the next `flink-up` starts clean. `say` is told what happened to the record."""
    try:
        backend = recorded_backend(settings) or make_backend(fallback(), settings)
    except RecordUnreadable as exc:
        return _stop_without_record(settings, exc, say or quiet)
    return backend, backend.down()


def _stop_without_record(settings: Settings, exc: RecordUnreadable,
                         say: ProgressFn) -> tuple[ClusterBackend, bool]:
    remove_record(settings)
    say(Step(f"removed the unreadable cluster record {exc.path} ({exc.why})"))
    stopped: list[ClusterBackend] = []
    for name in backend_names():
        # Best effort: a backend that cannot run here (no engine, not installed) has nothing to stop.
        with contextlib.suppress(ClusterError):
            backend = make_backend(name, settings)
            if backend.owns_cluster and backend.down():
                stopped.append(backend)
    return (stopped[0] if stopped else make_backend(fallback(), settings)), bool(stopped)


def log_backend(settings: Settings) -> ClusterBackend:
    """The recorded cluster's backend; without a record, the fallback one (local: its logs outlive `flink-down`)."""
    return recorded_backend(settings) or make_backend(fallback(), settings)
