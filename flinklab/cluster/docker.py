"""The Docker backend: a JobManager and N TaskManagers as containers of the official `flink` image (or FLINK_IMAGE).

Why the Docker SDK and not the compose CLI: the CLI comes in two incompatible generations (Python `docker-compose`
v1, still what Debian/Ubuntu's apt installs, rejects the compose spec's top-level `name:`; Go `docker compose` v2 is
a plugin that may be missing), their container names differ (`p_svc_1` vs `p-svc-1`) and their output is not an API.
The SDK talks to the engine's API directly, so one code path works wherever an engine answers, and errors come back
as data (a taken port, a missing image). `docker-compose.yml` stays the user-facing equivalent of the same topology
(tests/test_compose_file.py compares the two).

Topology (same as docker-compose.yml): network `<project>_default`; container `<project>-jobmanager-1` (network alias
`jobmanager`, REST published on bind_host:rest_port only) and `<project>-taskmanager-<i>`; the data dir and the
workspace root bind-mounted at identical paths; configuration through FLINK_PROPERTIES (no spaces in values: the
image's entrypoint strips whitespace). Everything carries `io.flinklab.*` labels; `down` removes exactly the
containers and network labelled with this project and `created-by=flinklab`. Each container also carries a hash of
its configuration, so `up` with another shape (`--taskmanagers`, `--slots`, image) recreates what changed.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from flinklab.cluster.base import (
    BackendDetails,
    ClusterRecord,
    ClusterStatus,
    UpResult,
    check_rest_port_free,
    finish_status,
    read_record,
    remove_record,
    select_components,
    write_record,
)
from flinklab.cluster.docker_engine import (
    container_logs,
    create_container,
    engine,
    engine_errors,
    engine_usable,
    ensure_image,
    start_container,
)
from flinklab.cluster.docker_spec import (
    CREATED_BY,
    LABEL_COMPONENT,
    LABEL_CONFIG,
    LABEL_CREATED_BY,
    LABEL_INDEX,
    LABEL_PROJECT,
    component_of,
    container_labels,
    container_spec,
    project_name,
    spec_hash,
)
from flinklab.cluster.progress import ProgressFn, Step, quiet, waits_to
from flinklab.errors import ClusterError
from flinklab.flink.readiness import (
    JOBMANAGER,
    TASKMANAGER,
    Diagnostics,
    NewTaskManagers,
    RestAnswers,
    TaskManagersRegistered,
    wait_until,
)
from flinklab.flink.rest import FlinkRest, RestUnavailable
from flinklab.settings import Settings
from flinklab.version import FLINK_VERSION

STOP_TIMEOUT = 20  # seconds a container gets on `docker stop` before SIGKILL


@dataclass
class DockerDetails(BackendDetails):
    """The docker cluster's record: its project, network and container names."""

    project: str
    network: str
    jobmanager: str
    taskmanagers: list[str] = field(default_factory=list)
    #: IP -> container name. Kept because a stopped container loses its IP, and errors name TMs by IP.
    addresses: dict[str, str] = field(default_factory=dict)


def _details(record: ClusterRecord) -> DockerDetails:
    assert isinstance(record.details, DockerDetails), record.details  # read_record types it by the backend name
    return record.details

class DockerBackend:
    """JobManager + N TaskManagers as labelled containers; see the module docstring."""

    name = "docker"
    Details = DockerDetails
    reads_local_data = True  # the data dir is bind-mounted from this host
    owns_cluster = True
    mutual_tls = False  # --shared would need the tls dir mounted into each container and the options in its config

    def __init__(self, settings: Settings, client: Any = None):
        self.settings = settings
        self.project = project_name(settings)
        record = read_record(settings)
        if record is not None and record.backend == self.name:
            # down/status/logs act on the recorded cluster even when the settings' port differs.
            self.project = _details(record).project
        self._client = client
        self._failed: str | None = None

    # ---------------------------------------------------------------- helpers
    @property
    def client(self):
        if self._client is None:
            self._client = engine()
        return self._client

    @property
    def network_name(self) -> str:
        return f"{self.project}_default"

    def jm_name(self) -> str:
        return f"{self.project}-{JOBMANAGER}-1"

    def tm_name(self, index: int) -> str:
        return f"{self.project}-{TASKMANAGER}-{index}"

    def _filters(self, **extra: str) -> dict:
        labels = [f"{LABEL_PROJECT}={self.project}", f"{LABEL_CREATED_BY}={CREATED_BY}"]
        labels += [f"{k}={v}" for k, v in extra.items()]
        return {"label": labels}

    def containers(self) -> list:
        """Our containers (any state), JobManager first, then TaskManagers by index."""
        found = self.client.containers.list(all=True, filters=self._filters())

        def order(c) -> tuple[int, int]:
            labels = c.labels or {}
            return (labels.get(LABEL_COMPONENT) != JOBMANAGER, int(labels.get(LABEL_INDEX, "0")))

        return sorted(found, key=order)

    # ---------------------------------------------------------------- usable (auto)
    @classmethod
    def usable(cls, settings: Settings) -> tuple[bool, str]:
        """(True, why) when the engine answers and the image is present or its registry answers for it."""
        return engine_usable(settings.image)

    # ---------------------------------------------------------------- up
    def up(self, progress: ProgressFn | None = None) -> UpResult:
        """Start (or repair, or reshape) the cluster; return once REST answers and every TM's slots registered."""
        with engine_errors("starting the cluster"):
            return self._up(progress or quiet)

    def _up(self, say: ProgressFn) -> UpResult:
        start = time.monotonic()
        s = self.settings
        record = read_record(s)
        if record is not None and record.backend != self.name:
            raise ClusterError(f"A {record.backend} cluster is recorded in {s.state_dir}.",
                               "Stop it with `flink-down` first.")
        if record is not None and record.rest_port != s.rest_port:
            raise ClusterError(f"A docker cluster is recorded on port {record.rest_port}, not {s.rest_port}.",
                               "Stop it with `flink-down` first, or use its port.")
        self.project = project_name(s)
        s.workspace_root.mkdir(parents=True, exist_ok=True)  # else the engine creates it, owned by root
        ensure_image(self.client, s.image, say)

        existing = {c.name: c for c in self.containers()}
        jm_spec = container_spec(s, JOBMANAGER, self.network_name)
        tm_spec = container_spec(s, TASKMANAGER, self.network_name)
        wanted = {self.jm_name(): (JOBMANAGER, 1, jm_spec)}
        wanted.update({self.tm_name(i): (TASKMANAGER, i, tm_spec) for i in range(1, s.taskmanagers + 1)})

        created: list = []
        repaired: list[str] = []
        changed = False
        rest = FlinkRest(s.rest_url)
        try:
            before_ids = {tm.get("id", "") for tm in rest.taskmanagers()}
        except RestUnavailable:
            before_ids = set()
        try:
            self._ensure_network()
            # TaskManagers beyond the wanted count (a smaller --taskmanagers): removed.
            for name, container in existing.items():
                if name not in wanted:
                    say(Step(f"removing {name}"))
                    container.remove(force=True)
                    changed = True
            jm = existing.get(self.jm_name())
            jm_fresh = jm is None or (jm.labels or {}).get(LABEL_CONFIG) != spec_hash(jm_spec) \
                or jm.status != "running"
            restarted_tms = 0
            for name, (component, index, spec) in wanted.items():
                container = existing.get(name)
                config_hash = spec_hash(spec)
                if container is not None and (container.labels or {}).get(LABEL_CONFIG) != config_hash:
                    say(Step(f"recreating {name} (its configuration changed)"))
                    container.remove(force=True)
                    container = None
                if container is None:
                    if component == JOBMANAGER:
                        check_rest_port_free(s)
                    say(Step(f"creating {name} from {s.image}"))
                    created.append(create_container(self.client, s, name, component, index, spec,
                                                    container_labels(self.project, component, index, config_hash)))
                    changed = True
                    if component == TASKMANAGER:
                        restarted_tms += 1
                elif container.status != "running":
                    code = container.attrs.get("State", {}).get("ExitCode")
                    say(Step(f"restarting {name} ({container.status}, exit code {code})"))
                    if component == JOBMANAGER:
                        check_rest_port_free(s)
                    start_container(container, s)
                    repaired.append(name)
                    changed = True
                    if component == TASKMANAGER:
                        restarted_tms += 1
            self._write_record()
            abort = self._abort_if_exited(list(wanted))
            wait_until(rest, RestAnswers(), timeout=s.startup_timeout, diagnostics=self._diagnostics,
                       abort=abort, progress=waits_to(say))
            if restarted_tms and not jm_fresh and before_ids:
                # The JobManager still lists a killed TM until its heartbeat times out: wait for the new ones.
                wait_until(rest, NewTaskManagers(before_ids, restarted_tms), timeout=s.startup_timeout,
                           diagnostics=self._diagnostics, abort=abort, progress=waits_to(say))
            wait_until(rest, TaskManagersRegistered(s.taskmanagers, s.slots, require_free=not repaired and changed),
                       timeout=s.startup_timeout, diagnostics=self._diagnostics, abort=abort, progress=waits_to(say))
        except BaseException:
            if created:
                say(Step("start-up failed: removing the containers this run created"))
            for container in created:
                with contextlib.suppress(Exception):  # best effort: the original error is what matters
                    container.remove(force=True)
            with contextlib.suppress(Exception):
                if not self.containers():  # nothing of ours is left: neither is the network nor the record
                    self._remove_network()
                    remove_record(s)
            raise
        return UpResult(status=self.status(), already_running=not changed, repaired=repaired,
                        seconds=time.monotonic() - start)

    def _ensure_network(self) -> bool:
        if self.client.networks.list(names=[self.network_name], filters=self._filters()):
            return False
        self.client.networks.create(self.network_name, driver="bridge",
                                    labels={LABEL_PROJECT: self.project, LABEL_CREATED_BY: CREATED_BY})
        return True

    def _remove_network(self) -> bool:
        removed = False
        for network in self.client.networks.list(filters=self._filters()):
            network.remove()
            removed = True
        return removed

    def _write_record(self) -> None:
        s = self.settings
        write_record(s, ClusterRecord(
            backend=self.name, rest_host=s.rest_host, rest_port=s.rest_port, taskmanagers=s.taskmanagers,
            slots=s.slots, flink_version=FLINK_VERSION, data_dir=str(s.data_dir),
            workspace_root=str(s.workspace_root), image=s.image,
            details=DockerDetails(project=self.project, network=self.network_name, jobmanager=self.jm_name(),
                                  taskmanagers=[self.tm_name(i) for i in range(1, s.taskmanagers + 1)],
                                  addresses=self._addresses()),
        ))

    def _addresses(self) -> dict[str, str]:
        """IP -> container name of our running containers."""
        addresses = {}
        for container in self.containers():
            for net in (container.attrs.get("NetworkSettings", {}).get("Networks") or {}).values():
                if net.get("IPAddress"):
                    addresses[net["IPAddress"]] = container.name
        return addresses

    def _abort_if_exited(self, names: list[str]):
        """An abort check for the waits: one of our containers exited."""

        def check() -> tuple[str, str] | None:
            for container in self.containers():
                if container.name in names and container.status in ("exited", "dead"):
                    code = container.attrs.get("State", {}).get("ExitCode")
                    self._failed = container.name
                    return container.name, f"Container {container.name} exited (code {code})"
            return None

        return check

    def _diagnostics(self, component: str) -> Diagnostics:
        """`docker logs` of the failed container (or the component's first) and its last lines."""
        from docker.errors import NotFound

        name = self._failed or (self.jm_name() if component == JOBMANAGER else self.tm_name(1))
        if not name.startswith(self.project):
            name = self.jm_name() if component == JOBMANAGER else self.tm_name(1)
        try:
            raw = self.client.containers.get(name).logs(tail=60).decode("utf-8", "replace")
        except NotFound:
            raw = ""
        lines = [ln for ln in raw.splitlines() if ln.strip() and not ln.strip().startswith("at ")]
        return Diagnostics(log=f"docker logs {name}", tail=lines[-5:])

    # ---------------------------------------------------------------- down
    def down(self) -> bool:
        """Remove our containers and network (found by label); False when there was nothing."""
        record = read_record(self.settings)
        with engine_errors("removing the cluster"):
            containers = self.containers()
            for container in containers:
                container.remove(force=True)
            removed_network = self._remove_network()
        if record is not None and record.backend == self.name:
            remove_record(self.settings)
        return bool(containers) or removed_network

    # ---------------------------------------------------------------- status
    def status(self) -> ClusterStatus:
        """Containers from the engine, the rest from REST /overview; `problems` names dead containers."""
        record = read_record(self.settings)
        rest_url = record.rest_url if record else self.settings.rest_url
        st = ClusterStatus(backend=self.name, running=False, rest_url=rest_url, state_dir=str(self.settings.state_dir))
        expected = record.taskmanagers if record and record.backend == self.name else self.settings.taskmanagers
        st.expected_taskmanagers = expected
        try:
            with engine_errors("listing the containers"):
                containers = {c.name: c for c in self.containers()}
        except ClusterError as exc:
            st.problems.append(exc.message)
            return st
        if not containers:
            st.problems.append(f"no flinklab containers of project {self.project}")
            return st
        jm = containers.get(self.jm_name())
        jm_running = jm is not None and jm.status == "running"
        for name in [self.jm_name()] + [self.tm_name(i) for i in range(1, expected + 1)]:
            kind = "JobManager" if name == self.jm_name() else "TaskManager"
            container = containers.get(name)
            if container is None:
                st.problems.append(f"{kind} container {name} is missing")
            elif container.status != "running":
                code = container.attrs.get("State", {}).get("ExitCode")
                st.problems.append(f"{kind} container {name} {container.status} (exit code {code})")
        return finish_status(st, jm_running, expected)

    def name_taskmanagers(self, text: str) -> str:
        """`text` (e.g. a job's error) with each address of ours (`172.19.0.3:41029-1f071c`, `flink@172.19.0.3:41029`)
        followed by its container's name, so "The heartbeat of TaskManager with id ... timed out" says which
        container died."""
        record = read_record(self.settings)
        addresses = dict(_details(record).addresses) if record and record.backend == self.name else {}
        with contextlib.suppress(ClusterError), engine_errors("listing the containers"):
            addresses.update(self._addresses())  # an unreachable engine leaves the recorded addresses

        def add_name(match: re.Match) -> str:
            name = addresses.get(match.group(1))
            return f"{match.group(0)} (container {name})" if name else match.group(0)

        # Flink names a TM as `ip:port-suffix` (its resource id) or `flink@ip:port` (its RPC address).
        return re.sub(r"\b(\d{1,3}(?:\.\d{1,3}){3})(?::\d+(?:-[0-9a-f]+\b)?)?", add_name, text)

    # ---------------------------------------------------------------- logs
    def _select(self, component: str | None) -> list:
        """The containers `component` names, with the same spelling as the local backend's logs."""
        containers = self.containers()
        if not containers:
            raise ClusterError(f"No flinklab containers of project {self.project}.", "Start a cluster with `flink-up`.")
        by_component = {component_of(c): c for c in containers}
        return list(select_components(by_component, component).values())

    def settling(self) -> bool:
        """Nothing goes on in the background after a start (the containers' JVMs make no archive)."""
        return False

    def follow_logs(self, component: str | None, follow: bool) -> Iterator[str]:
        """The last 200 lines of each selected container's log, then (with `follow`) new lines."""
        with engine_errors("reading the logs"):
            yield from container_logs(self._select(component), follow)
