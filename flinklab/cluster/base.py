"""The one interface every backend implements, and the cluster record kept in the state dir.

A backend owns processes/containers (or, for `remote`, only the attachment): start or attach, wait until ready,
status, stop or detach, logs. It knows no lab: the lab data is provisioned by the use case that calls `up`
(flinklab.usecases.cluster). SQL execution is the runner's business (flinklab.sqlclient) and talks to whatever
answers at the recorded REST endpoint. Backends are listed in flinklab.settings.BACKENDS.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import ClassVar, Protocol, TypeVar, get_origin, get_type_hints

from flinklab.cluster.progress import ProgressFn
from flinklab.cluster.registry import backend_class, backend_names
from flinklab.errors import ClusterError, UsageError
from flinklab.files import write_atomic
from flinklab.flink.readiness import JOBMANAGER, TASKMANAGER
from flinklab.flink.rest import FlinkRest, RestUnavailable
from flinklab.flink.tls import cluster_rest
from flinklab.flink.waiting import one_line
from flinklab.settings import Settings

T = TypeVar("T")

@dataclass
class BackendDetails:
    """What one backend records about its cluster (pids, container names...): each backend subclasses it with
    typed fields. Code outside the backend reads only ClusterRecord's common fields."""


@dataclass
class ClusterRecord:
    """What `flink-up` started or attached to, written to `state_dir/cluster.json`; `flink-down`/`status` read it."""

    backend: str  # a name in flinklab.cluster.registry
    rest_host: str
    rest_port: int
    taskmanagers: int
    slots: int
    flink_version: str
    data_dir: str  # as the TaskManagers see it
    workspace_root: str
    details: BackendDetails  # the backend's own typed details (its class's `Details`)
    image: str = ""  # the Flink image the cluster runs on, when flinklab knows it (docker)
    #: `flink-up --shared`: its REST API speaks TLS and wants the state dir's client certificate (flinklab.flink.tls);
    #: recorded so that every later command (status, run, the gateway) reaches it without being told again
    shared: bool = False

    @property
    def rest_url(self) -> str:
        return f"{'https' if self.shared else 'http'}://{self.rest_host}:{self.rest_port}"


def record_path(settings: Settings) -> Path:
    return settings.state_dir / "cluster.json"


class RecordUnreadable(ClusterError):
    """`state_dir/cluster.json` exists but is not a record this version can use (corrupt, or another version's)."""

    def __init__(self, path: Path, why: str):
        super().__init__(f"The cluster record {path} is unreadable ({why}).",
                         f"Run `flink-down` (it stops what it can find and removes the record), or delete {path}.")
        self.path = path
        self.why = why


def _type_ok(value: object, hint: object) -> bool:
    """A shallow check of a JSON value against a field's type hint (int, str, list[...], dict[...])."""
    origin = get_origin(hint) or hint
    if origin in (int, bool):
        return type(value) is origin  # bool is an int subclass: exact types only
    if origin in (str, list, dict):
        return isinstance(value, origin)
    return True


def typed_from_json(cls: type[T], data: object, path: Path, what: str) -> T:
    """`cls(**data)` when `data` has exactly `cls`'s fields (those without defaults required), each of its type;
    else RecordUnreadable naming what is wrong."""
    if not isinstance(data, dict):
        raise RecordUnreadable(path, f"{what} is a JSON {type(data).__name__}, not an object")
    hints = get_type_hints(cls)
    required = {f.name for f in fields(cls) if f.default is f.default_factory is MISSING}
    names = {f.name for f in fields(cls)}
    missing = sorted(required - set(data))
    unknown = sorted(set(data) - names)
    if missing or unknown:
        why = "; ".join(part for part in (
            f"missing {', '.join(missing)}" if missing else "", f"unknown {', '.join(unknown)}" if unknown else ""
        ) if part)
        raise RecordUnreadable(path, f"{what}: {why}: written by another flinklab version?")
    bad = [key for key, value in data.items() if not _type_ok(value, hints.get(key))]
    if bad:
        raise RecordUnreadable(path, f"{what}: wrong type of {', '.join(bad)}")
    return cls(**data)


def read_record(settings: Settings, details: bool = True) -> ClusterRecord | None:
    """The record of the running cluster, or None when `flink-up` has not started one (or it was torn down);
    `details=False` leaves its backend's details as JSON (a client that wants only the URL imports no backend).

    A file that is there but unusable raises RecordUnreadable: treating it as "nothing recorded" would let `up`
    start a second cluster beside the one it describes."""
    path = record_path(settings)
    try:
        data = json.loads(path.read_text())
    except (FileNotFoundError, NotADirectoryError):  # no record can be there (the state dir's own error is later)
        return None
    except (OSError, ValueError) as exc:  # unreadable file, or not JSON
        raise RecordUnreadable(path, one_line(exc)) from None
    if not isinstance(data, dict):
        raise RecordUnreadable(path, f"a JSON {type(data).__name__}, not an object")
    record = typed_from_json(ClusterRecord, data, path, "record")  # `details` is still JSON here
    if record.backend not in backend_names():
        raise RecordUnreadable(path, f"unknown backend {record.backend!r}")
    if details:
        record.details = typed_from_json(backend_class(record.backend).Details, record.details, path, "details")
    return record


def write_record(settings: Settings, record: ClusterRecord) -> None:
    write_atomic(record_path(settings), json.dumps(asdict(record), indent=2), mkdir=True)


def remove_record(settings: Settings) -> None:
    record_path(settings).unlink(missing_ok=True)


def recorded_image(settings: Settings) -> str:
    """The running cluster's image when flinklab knows it (it is present: the cluster runs on it), else the
    settings' image: the one a client JVM in a container (flinklab.gateway.java_shim) runs on."""
    record = read_record(settings, details=False)
    if record is not None and record.image:
        return record.image
    return settings.image


def resolve_rest_url(settings: Settings) -> str:
    """The endpoint clients should use: the running cluster's recorded one, else the settings' one."""
    record = read_record(settings, details=False)
    return record.rest_url if record else settings.rest_url


def check_rest_port_free(settings: Settings) -> None:
    """ClusterError naming who holds the REST port (a foreign Flink or another program) when it is taken."""
    from flinklab.flink.procs import port_is_free  # here: sql-client.sh imports this module for the record alone

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
    attached: bool = False  # a cluster flinklab did not start (remote): `flink-down` only detaches
    shared: bool = False  # its REST API is behind mutual TLS (`flink-up --shared`): the Web UI is the gateway's
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


def finish_status(st: ClusterStatus, jm_running: bool, expected_taskmanagers: int, timeout: float = 3) -> ClusterStatus:
    """Complete a started cluster's status from REST /overview: its counters, `running` (the JobManager runs and
    REST answers), and a problem when REST does not answer or TaskManagers are missing."""
    try:
        ov = cluster_rest(st.rest_url, Path(st.state_dir), timeout=timeout).overview()
    except RestUnavailable:
        if jm_running:
            st.problems.append(f"the REST endpoint {st.rest_url} does not answer")
        return st
    fill_from_overview(st, ov)
    st.running = jm_running
    if st.taskmanagers < expected_taskmanagers:
        st.problems.append(f"{st.taskmanagers} of {expected_taskmanagers} TaskManagers registered")
    return st


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
    copied: list[str] = field(default_factory=list)  # lab data files provisioned into the data dir by this `up`


class Lifecycle(Protocol):
    """The shape of everything flinklab runs as long as the cluster: every backend, and the SQL gateway process
    (flinklab.environment.gateway.GatewayProcess). `up` returns only when it is ready; `down` stops it."""

    def up(self, progress: ProgressFn | None = None) -> object:
        """Start (or repair, or attach to) it and return only when it is ready; idempotent."""

    def down(self) -> bool:
        """Stop exactly what `up` started. Returns False when nothing was there."""

    def status(self) -> object:
        """Its health."""

    def follow_logs(self, component: str | None, follow: bool) -> Iterator[str]:
        """Lines of its logs (and, with `follow`, new ones as they come)."""


class ClusterBackend(Lifecycle, Protocol):
    """What every backend in flinklab.cluster.registry implements (all of it; nothing here is optional)."""

    name: ClassVar[str]
    #: The record's typed `details` for this backend (a BackendDetails subclass).
    Details: ClassVar[type[BackendDetails]]
    #: True when the cluster reads the data dir on this host (local JVMs, bind mounts): `up`'s caller provisions
    #: it first. False for a cluster elsewhere (remote), which must already have the data.
    reads_local_data: ClassVar[bool]
    #: True when `down` stops what `up` started; False when it only forgets an attachment (remote).
    owns_cluster: ClassVar[bool]
    #: True when `flink-up --shared` can put its REST API behind mutual TLS (flinklab.flink.tls): local only.
    mutual_tls: ClassVar[bool]

    def __init__(self, settings: Settings) -> None: ...

    @classmethod
    def usable(cls, settings: Settings) -> tuple[bool, str]:
        """(can serve `flink-up` here, why): asked by `--backend auto`, in the registry's order. `why` is one short
        line; a second line may hold the detail behind it (e.g. the engine's own error), which `flink-up --verbose`
        prints."""

    def up(self, progress: ProgressFn | None = None) -> UpResult:
        """Start (or repair, or attach to) the cluster and return only when it is ready; idempotent."""

    def down(self) -> bool:
        """Stop exactly what `up` started (or forget the attachment). Returns False when nothing was there."""

    def status(self) -> ClusterStatus:
        """The recorded cluster's health; `problems` says what is wrong."""

    def follow_logs(self, component: str | None, follow: bool) -> Iterator[str]:
        """Lines of the JM/TM logs (all components when None); ClusterError saying where they are if not here."""

    def settling(self) -> bool:
        """True while work its start began in the background goes on (the local backend's class-data archive
        dumps, flinklab.cluster.local_cds): `flinklab prepare` waits for it before it stops the cluster."""
