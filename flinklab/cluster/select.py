"""Which backend serves a command: `up` chooses (explicit, recorded, or auto); down/status/logs use the record."""

from __future__ import annotations

import contextlib
from typing import Callable

from flinklab.cluster.base import (
    ClusterBackend,
    ClusterStatus,
    RecordUnreadable,
    fill_from_overview,
    read_record,
    remove_record,
)
from flinklab.cluster.local import LocalBackend
from flinklab.cluster.rest import FlinkRest, RestUnavailable
from flinklab.errors import ClusterError
from flinklab.settings import Settings


def _docker_class():
    """The Docker backend class, or None while it is not installed/delivered (ImportError = use local)."""
    try:
        from flinklab.cluster.docker import DockerBackend
    except ImportError:
        return None
    return DockerBackend


def _make(name: str, settings: Settings) -> ClusterBackend:
    if name == "local":
        return LocalBackend(settings)
    cls = _docker_class()
    if cls is None:
        raise ClusterError("The docker backend is not available in this installation.",
                           "Use `--backend local` (or FLINKLAB_BACKEND=local).")
    return cls(settings)


def backend_for(settings: Settings) -> tuple[ClusterBackend, str]:
    """The backend `up` should use, and why: explicit wins; `auto` follows the record, else docker if usable."""
    if settings.backend in ("local", "docker"):
        return _make(settings.backend, settings), f"--backend {settings.backend} was asked for"
    record = read_record(settings)
    if record is not None:
        return _make(record.backend, settings), f"a {record.backend} cluster is recorded in {settings.state_dir}"
    cls = _docker_class()
    if cls is None:
        return LocalBackend(settings), "the docker backend is not installed"
    try:
        usable, why = cls.usable(settings)
    except Exception as exc:  # noqa: BLE001 - a broken engine must not stop a local start: fall back, say why
        usable, why = False, f"docker check failed: {exc}"
    if usable:
        return cls(settings), why or "docker engine reachable and the image is present"
    return LocalBackend(settings), why or "docker cannot serve"


def recorded_backend(settings: Settings) -> ClusterBackend | None:
    """The backend of the recorded cluster (for down/status/logs), or None when nothing is recorded."""
    record = read_record(settings)
    if record is None:
        return None
    return _make(record.backend, settings)


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


def stop_cluster(settings: Settings, say: Callable[[str], None] | None = None) -> tuple[str, bool]:
    """Stop the recorded cluster (or local strays of this state dir); returns (backend name, anything stopped).

    An unreadable record cannot say which backend ran, so both are cleaned up the way they can be without it
    (local: processes using this state dir's config; docker: containers of this port's project) and the record
    is removed, so the next `flink-up` starts clean. `say` is told what happened to the record."""
    try:
        backend = recorded_backend(settings) or LocalBackend(settings)
    except RecordUnreadable as exc:
        return _stop_without_record(settings, exc, say or (lambda message: None))
    return backend.name, backend.down()


def _stop_without_record(settings: Settings, exc: RecordUnreadable, say: Callable[[str], None]) -> tuple[str, bool]:
    remove_record(settings)
    say(f"removed the unreadable cluster record {exc.path} ({exc.why})")
    stopped: list[str] = []
    if LocalBackend(settings).down():
        stopped.append("local")
    cls = _docker_class()
    if cls is not None:
        # Best effort: no engine (or no docker at all) just means no docker cluster to stop.
        with contextlib.suppress(ClusterError):
            if cls(settings).down():
                stopped.append("docker")
    return (" and ".join(stopped) or "local"), bool(stopped)


def log_backend(settings: Settings) -> ClusterBackend:
    """The recorded cluster's backend; without a record, the local one (its logs outlive `flink-down`)."""
    return recorded_backend(settings) or LocalBackend(settings)
