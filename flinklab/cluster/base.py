"""The one interface both backends implement, and the cluster record kept in the state dir.

A backend owns processes/containers only: start, wait until ready, status, stop, logs. SQL execution is the
runner's business (flinklab.sqlclient) and talks to whatever answers at the recorded REST endpoint.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Protocol, TypeVar

from flinklab.cluster.rest import FlinkRest
from flinklab.cluster.waits import JOBMANAGER, TASKMANAGER, one_line
from flinklab.errors import ClusterError, UsageError
from flinklab.settings import Settings

T = TypeVar("T")


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


class RecordUnreadable(ClusterError):
    """`state_dir/cluster.json` exists but is not a record this version can use (corrupt, or another version's)."""

    def __init__(self, path: Path, why: str):
        super().__init__(f"The cluster record {path} is unreadable ({why}).",
                         f"Run `flink-down` (it stops what it can find and removes the record), or delete {path}.")
        self.path = path
        self.why = why


_INT_FIELDS = ("rest_port", "taskmanagers", "slots")


def read_record(settings: Settings) -> ClusterRecord | None:
    """The record of the running cluster, or None when `flink-up` has not started one (or it was torn down).

    A file that is there but unusable raises RecordUnreadable: treating it as "nothing recorded" would let `up`
    start a second cluster beside the one it describes."""
    path = record_path(settings)
    try:
        data = json.loads(path.read_text())
    except (FileNotFoundError, NotADirectoryError):  # no record can be there (the state dir's own error is later)
        return None
    except (OSError, ValueError) as exc:  # unreadable file, or not JSON
        raise RecordUnreadable(path, one_line(exc)) from None
    names = {f.name for f in fields(ClusterRecord)}
    if not isinstance(data, dict):
        raise RecordUnreadable(path, f"a JSON {type(data).__name__}, not an object")
    missing = sorted(names - set(data) - {"details"})
    unknown = sorted(set(data) - names)
    if missing or unknown:
        why = "; ".join(part for part in (
            f"missing {', '.join(missing)}" if missing else "", f"unknown {', '.join(unknown)}" if unknown else ""
        ) if part)
        raise RecordUnreadable(path, f"{why}: written by another flinklab version?")
    bad = [key for key in _INT_FIELDS if type(data[key]) is not int]
    if bad or not isinstance(data.get("details", {}), dict):
        raise RecordUnreadable(path, f"wrong type of {', '.join(bad or ['details'])}")
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


def port_is_free(host: str, port: int) -> bool:
    """True when nothing holds `host:port` (TIME_WAIT leftovers of a stopped cluster do not count)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def check_rest_port_free(settings: Settings) -> None:
    """ClusterError naming who holds the REST port (a foreign Flink or another program) when it is taken."""
    host, port = settings.bind_host, settings.rest_port
    if not port_is_free(host, port):
        foreign = FlinkRest(settings.rest_url, 2).is_up()
        owner = "a Flink cluster flinklab did not start" if foreign else "another program"
        raise ClusterError(f"Port {port} on {host} is in use by {owner}.",
                           "Choose another REST port with `--port P` or FLINKLAB_REST_PORT=P.")


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


def fill_from_overview(st: ClusterStatus, ov: dict) -> None:
    """Copy GET /overview's counters into a ClusterStatus."""
    st.flink_version = ov.get("flink-version")
    st.taskmanagers = int(ov.get("taskmanagers", 0))
    st.slots_total = int(ov.get("slots-total", 0))
    st.slots_available = int(ov.get("slots-available", 0))
    st.jobs_running = int(ov.get("jobs-running", 0))
    st.jobs_finished = int(ov.get("jobs-finished", 0))
    st.jobs_failed = int(ov.get("jobs-failed", 0))
    st.jobs_cancelled = int(ov.get("jobs-cancelled", 0))


def tm_name(index: int) -> str:
    """A TaskManager's component name: `taskmanager-<index>`."""
    return f"{TASKMANAGER}-{index}"


def select_components(items: dict[str, T], component: str | None) -> dict[str, T]:
    """`None` = all; `jobmanager`/`jm`; `taskmanager`/`tm` = every TM; `taskmanager-2`/`tm2`/`2` = that TM.

    `items` maps component names (`jobmanager`, `taskmanager-<i>`) to log files or containers."""
    if component is None:
        return items
    key = component.lower()
    if key in ("jm", JOBMANAGER):
        wanted = [JOBMANAGER]
    elif key in ("tm", TASKMANAGER, "taskmanagers"):
        wanted = [n for n in items if n.startswith(TASKMANAGER)]
    else:
        m = re.fullmatch(r"(?:tm|taskmanager)?-?(\d+)", key)
        wanted = [tm_name(int(m.group(1)))] if m else [key]
    chosen = {n: items[n] for n in wanted if n in items}
    if not chosen:
        raise UsageError(f"No log for component {component!r}.", f"Components: {', '.join(items)}.")
    return chosen


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
