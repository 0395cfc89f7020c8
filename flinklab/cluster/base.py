"""The one interface both backends implement, and the cluster record kept in the state dir.

A backend owns processes/containers only: start, wait until ready, status, stop, logs. SQL execution is the
runner's business (flinklab.sqlclient) and talks to whatever answers at the recorded REST endpoint.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Protocol

from flinklab.settings import Settings


@dataclass
class ClusterRecord:
    """What `flink-up` started, written to `state_dir/cluster.json`; `flink-down`/`status` read it back."""

    backend: str  # "local" | "docker"
    rest_host: str
    rest_port: int
    taskmanagers: int
    slots: int
    flink_version: str
    data_dir: str
    workspace_root: str
    details: dict = field(default_factory=dict)  # backend-specific: pids, container ids, project name...

    @property
    def rest_url(self) -> str:
        return f"http://{self.rest_host}:{self.rest_port}"


def record_path(settings: Settings) -> Path:
    return settings.state_dir / "cluster.json"


def read_record(settings: Settings) -> ClusterRecord | None:
    """The record of the running cluster, or None when `flink-up` has not started one (or it was torn down)."""
    path = record_path(settings)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return None
    return ClusterRecord(**data)


def write_record(settings: Settings, record: ClusterRecord) -> None:
    path = record_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(record), indent=2))
    tmp.replace(path)


def remove_record(settings: Settings) -> None:
    record_path(settings).unlink(missing_ok=True)


def resolve_rest_url(settings: Settings) -> str:
    """The endpoint clients should use: the running cluster's recorded one, else the settings' one."""
    record = read_record(settings)
    return record.rest_url if record else settings.rest_url


@dataclass
class ClusterStatus:
    backend: str
    running: bool
    rest_url: str
    flink_version: str | None = None
    taskmanagers: int = 0
    expected_taskmanagers: int = 0
    slots_total: int = 0
    slots_available: int = 0
    jobs_running: int = 0
    jobs_finished: int = 0
    jobs_failed: int = 0
    jobs_cancelled: int = 0
    state_dir: str = ""
    problems: list[str] = field(default_factory=list)  # e.g. "TaskManager flinklab-taskmanager-2 is not running"


@dataclass
class UpResult:
    status: ClusterStatus
    already_running: bool = False
    repaired: list[str] = field(default_factory=list)  # what was restarted on a half-dead cluster
    seconds: float = 0.0
    reason: str = ""  # why this backend was chosen (auto)


class ClusterBackend(Protocol):
    name: str

    def up(self, progress: ProgressFn | None = None) -> UpResult:
        """Start (or repair) the cluster and return only when it is ready; idempotent."""

    def down(self) -> bool:
        """Stop exactly what `up` started. Returns False when nothing was running."""

    def status(self) -> ClusterStatus: ...

    def log_files(self) -> dict[str, Path]:
        """Name -> log file (local) ; the docker backend may return {} and implement follow_logs instead."""

    def follow_logs(self, component: str | None, follow: bool) -> Iterator[str]:
        """Lines of the JM/TM logs (all components when None)."""


class ProgressFn(Protocol):
    def __call__(self, message: str) -> None: ...
