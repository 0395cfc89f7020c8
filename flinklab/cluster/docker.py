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
import hashlib
import json
import os
import queue
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from flinklab.cluster.base import (
    BackendDetails,
    ClusterRecord,
    ClusterStatus,
    ProgressFn,
    UpResult,
    check_rest_port_free,
    fill_from_overview,
    read_record,
    remove_record,
    select_components,
    tm_name,
    write_record,
)
from flinklab.cluster.waits import (
    JOBMANAGER,
    TASKMANAGER,
    Diagnostics,
    NewTaskManagers,
    RestAnswers,
    TaskManagersRegistered,
    wait_until,
)
from flinklab.errors import ClusterError, UsageError
from flinklab.flink.options import cluster_options
from flinklab.flink.rest import FlinkRest, RestUnavailable
from flinklab.flink.waits import one_line
from flinklab.settings import Settings
from flinklab.version import FLINK_VERSION

LABEL_PROJECT = "io.flinklab.project"
LABEL_COMPONENT = "io.flinklab.component"
LABEL_INDEX = "io.flinklab.index"
LABEL_CREATED_BY = "io.flinklab.created-by"
LABEL_CONFIG = "io.flinklab.config-hash"
CREATED_BY = "flinklab"
CONTAINER_REST_PORT = 8081
DEFAULT_PROJECT = "flinklab"
STOP_TIMEOUT = 20  # seconds a container gets on `docker stop` before SIGKILL
PULL_HINT = "Use `--backend local`, or build the offline stand-in (`flinklab image build-offline`) and set FLINK_IMAGE."

#: JobManager healthcheck: the REST API answers /overview (wget is in the official image; bash /dev/tcp fallback).
HEALTHCHECK_TEST = [
    "CMD-SHELL",
    (
        "wget -qO- http://127.0.0.1:8081/overview >/dev/null 2>&1"
        " || bash -c 'exec 3<>/dev/tcp/127.0.0.1/8081 && printf \"GET /overview HTTP/1.0\\r\\n\\r\\n\" >&3"
        " && grep -q taskmanagers <&3'"
    ),
]


def project_name(settings: Settings) -> str:
    """FLINKLAB_DOCKER_PROJECT, else `flinklab` on the default port and `flinklab-<port>` otherwise.

    Two clusters can never share a REST port, so the port keeps a second cluster (e.g. the test suite's) apart."""
    if settings.docker_project:
        return settings.docker_project
    return DEFAULT_PROJECT if settings.rest_port == 8081 else f"{DEFAULT_PROJECT}-{settings.rest_port}"


def flink_properties(settings: Settings) -> dict[str, str]:
    """The Flink options every container gets through FLINK_PROPERTIES (same list as docker-compose.yml): the
    shared table (flinklab.flink.options), after the JobManager's address on the project's network."""
    return {"jobmanager.rpc.address": JOBMANAGER, **cluster_options(settings)}


def render_properties(props: dict[str, str]) -> str:
    """FLINK_PROPERTIES text; a value with whitespace is refused (the entrypoint would silently mangle it)."""
    for key, value in props.items():
        if any(ch.isspace() for ch in value):
            raise UsageError(f"Flink option {key}={value!r} contains whitespace.",
                             "The image's entrypoint strips whitespace from FLINK_PROPERTIES; use a value without it.")
    return "".join(f"{key}: {value}\n" for key, value in props.items())


def container_user(settings: Settings) -> str | None:
    """FLINKLAB_CONTAINER_USER, else the host user when it is root (so files jobs write into the bind-mounted
    workspace belong to the host user, and pytest's 0700 temp dirs are readable), else the image's own user."""
    if settings.container_user:
        return settings.container_user
    return "0:0" if os.getuid() == 0 else None


def _engine(timeout: int = 60):
    """A Docker client that answered a ping, else ClusterError."""
    from docker.errors import DockerException

    import docker

    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
    except DockerException as exc:
        raise ClusterError(f"The Docker engine does not answer ({one_line(exc, 200)}).",
                           "Start Docker (or check DOCKER_HOST), or use `--backend local`.") from None
    return client


@contextlib.contextmanager
def _engine_errors(doing: str) -> Iterator[None]:
    """Turn the engine's own errors (an API error, a lost connection) into one ClusterError line.

    docker-py raises DockerException subclasses for API answers, but a connection lost after the first ping
    surfaces as requests' ConnectionError/ReadTimeout, so both are caught."""
    from docker.errors import DockerException
    from requests.exceptions import RequestException

    try:
        yield
    except (DockerException, RequestException) as exc:
        why = getattr(exc, "explanation", None) or exc  # the engine's own words when it answered
        raise ClusterError(f"The Docker engine failed while {doing}: {one_line(why, 200)}",
                           "Check that Docker runs (`docker info`, DOCKER_HOST); `flinklab status` shows what is left."
                           ) from None


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
            self._client = _engine()
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

    def _labels(self, component: str, index: int, config_hash: str) -> dict[str, str]:
        return {LABEL_PROJECT: self.project, LABEL_CREATED_BY: CREATED_BY, LABEL_COMPONENT: component,
                LABEL_INDEX: str(index), LABEL_CONFIG: config_hash,
                "io.flinklab.flink-version": FLINK_VERSION}

    def _spec(self, component: str) -> dict:
        """Everything that defines a container of `component` (hashed into LABEL_CONFIG)."""
        s = self.settings
        mounts = {str(s.data_dir): {"bind": str(s.data_dir), "mode": "rw"},
                  str(s.workspace_root): {"bind": str(s.workspace_root), "mode": "rw"}}
        spec: dict[str, Any] = {
            "image": s.image,
            "command": component,
            "environment": {"FLINK_PROPERTIES": render_properties(flink_properties(s))},
            "volumes": mounts,
            "user": container_user(s),
            "network": self.network_name,
        }
        if component == JOBMANAGER:
            spec["ports"] = {f"{CONTAINER_REST_PORT}/tcp": (s.bind_host, s.rest_port)}
            spec["healthcheck"] = {"test": HEALTHCHECK_TEST, "interval": 5_000_000_000, "timeout": 5_000_000_000,
                                   "retries": 30, "start_period": 20_000_000_000}
        return spec

    @staticmethod
    def _hash(spec: dict) -> str:
        return hashlib.sha256(json.dumps(spec, sort_keys=True, default=str).encode()).hexdigest()[:16]

    # ---------------------------------------------------------------- usable (auto)
    @classmethod
    def usable(cls, settings: Settings) -> tuple[bool, str]:
        """(True, why) when the engine answers and the image is present or its registry answers for it."""
        from docker.errors import APIError, DockerException, ImageNotFound

        try:
            client = _engine(timeout=10)
        except ClusterError as exc:
            return False, exc.message
        try:
            client.images.get(settings.image)
            return True, f"the Docker engine answers and {settings.image} is present"
        except ImageNotFound:
            pass
        except DockerException as exc:
            return False, f"the Docker engine could not list images ({one_line(exc, 120)})"
        try:
            client.images.get_registry_data(settings.image)
        except (APIError, DockerException) as exc:
            # the engine's own words (e.g. "dial tcp: lookup registry-1.docker.io ... no such host"), not the URL
            why = getattr(exc, "explanation", None) or exc
            return False, f"{settings.image} is not present and cannot be pulled: {one_line(why, 120)}"
        return True, f"the Docker engine answers and {settings.image} can be pulled"

    # ---------------------------------------------------------------- up
    def up(self, progress: ProgressFn | None = None) -> UpResult:
        """Start (or repair, or reshape) the cluster; return once REST answers and every TM's slots registered."""
        with _engine_errors("starting the cluster"):
            return self._up(progress or (lambda message: None))

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
        self._ensure_image(say)

        existing = {c.name: c for c in self.containers()}
        jm_spec, tm_spec = self._spec(JOBMANAGER), self._spec(TASKMANAGER)
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
                    say(f"removing {name}")
                    container.remove(force=True)
                    changed = True
            jm = existing.get(self.jm_name())
            jm_fresh = jm is None or (jm.labels or {}).get(LABEL_CONFIG) != self._hash(jm_spec) \
                or jm.status != "running"
            restarted_tms = 0
            for name, (component, index, spec) in wanted.items():
                container = existing.get(name)
                config_hash = self._hash(spec)
                if container is not None and (container.labels or {}).get(LABEL_CONFIG) != config_hash:
                    say(f"recreating {name} (its configuration changed)")
                    container.remove(force=True)
                    container = None
                if container is None:
                    if component == JOBMANAGER:
                        check_rest_port_free(s)
                    say(f"creating {name} from {s.image}")
                    created.append(self._create(name, component, index, spec, config_hash))
                    changed = True
                    if component == TASKMANAGER:
                        restarted_tms += 1
                elif container.status != "running":
                    code = container.attrs.get("State", {}).get("ExitCode")
                    say(f"restarting {name} ({container.status}, exit code {code})")
                    if component == JOBMANAGER:
                        check_rest_port_free(s)
                    self._start(container)
                    repaired.append(name)
                    changed = True
                    if component == TASKMANAGER:
                        restarted_tms += 1
            self._write_record()
            abort = self._abort_if_exited(list(wanted))
            wait_until(rest, RestAnswers(), timeout=s.startup_timeout, diagnostics=self._diagnostics,
                       abort=abort, progress=say)
            if restarted_tms and not jm_fresh and before_ids:
                # The JobManager still lists a killed TM until its heartbeat times out: wait for the new ones.
                wait_until(rest, NewTaskManagers(before_ids, restarted_tms), timeout=s.startup_timeout,
                           diagnostics=self._diagnostics, abort=abort, progress=say)
            wait_until(rest, TaskManagersRegistered(s.taskmanagers, s.slots, require_free=not repaired and changed),
                       timeout=s.startup_timeout, diagnostics=self._diagnostics, abort=abort, progress=say)
        except BaseException:
            if created:
                say("start-up failed: removing the containers this run created")
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

    def _ensure_image(self, say: ProgressFn) -> None:
        """Pull the image when absent, with a rich progress bar per layer."""
        from docker.errors import APIError, ImageNotFound

        image = self.settings.image
        try:
            self.client.images.get(image)
            return
        except ImageNotFound:
            pass
        say(f"pulling {image} (first start only)")
        try:
            _pull_with_progress(self.client, image)
            self.client.images.get(image)
        except (APIError, ImageNotFound) as exc:
            raise ClusterError(f"Cannot pull {image}: {one_line(exc, 160)}", PULL_HINT) from None

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

    def _create(self, name: str, component: str, index: int, spec: dict, config_hash: str):
        from docker.errors import APIError
        from docker.types import EndpointConfig

        kwargs = dict(spec)
        network = kwargs.pop("network")
        aliases = [component] if component == JOBMANAGER else [f"{component}-{index}"]
        try:
            container = self.client.containers.create(
                name=name,
                hostname=name,
                labels=self._labels(component, index, config_hash),
                network=network,
                networking_config={network: EndpointConfig(self.client.api._version, aliases=aliases)},
                detach=True,
                **kwargs,
            )
        except APIError as exc:
            if exc.status_code == 409:
                raise ClusterError(f"A container named {name} already exists and flinklab did not create it.",
                                   f"Remove it (`docker rm -f {name}`; `docker compose down` if compose started it)"
                                   " or choose another port/FLINKLAB_DOCKER_PROJECT.") from None
            raise ClusterError(f"Cannot create {name}: {one_line(exc, 200)}") from None
        self._start(container)
        return container

    def _start(self, container) -> None:
        from docker.errors import APIError

        try:
            container.start()
        except APIError as exc:
            text = str(exc)
            if "port is already allocated" in text or "address already in use" in text:
                s = self.settings
                raise ClusterError(f"Port {s.rest_port} on {s.bind_host} is in use by another program.",
                                   "Choose another REST port with `--port P` or FLINKLAB_REST_PORT=P.") from None
            raise ClusterError(f"Cannot start {container.name}: {one_line(exc, 200)}") from None

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
        with _engine_errors("removing the cluster"):
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
            with _engine_errors("listing the containers"):
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
        try:
            ov = FlinkRest(rest_url, timeout=3).overview()
        except RestUnavailable:
            if jm_running:
                st.problems.append(f"the REST endpoint {rest_url} does not answer")
            return st
        fill_from_overview(st, ov)
        st.running = jm_running
        if st.taskmanagers < expected:
            st.problems.append(f"{st.taskmanagers} of {expected} TaskManagers registered")
        return st

    def name_taskmanagers(self, text: str) -> str:
        """`text` (e.g. a job's error) with each address of ours (`172.19.0.3:41029-1f071c`, `flink@172.19.0.3:41029`)
        followed by its container's name, so "The heartbeat of TaskManager with id ... timed out" says which
        container died."""
        record = read_record(self.settings)
        addresses = dict(_details(record).addresses) if record and record.backend == self.name else {}
        with contextlib.suppress(ClusterError), _engine_errors("listing the containers"):
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
        by_component = {_component(c): c for c in containers}
        return list(select_components(by_component, component).values())

    def follow_logs(self, component: str | None, follow: bool) -> Iterator[str]:
        """The last 200 lines of each selected container's log, then (with `follow`) new lines."""
        with _engine_errors("reading the logs"):
            yield from self._follow_logs(component, follow)

    def _follow_logs(self, component: str | None, follow: bool) -> Iterator[str]:
        chosen = self._select(component)
        prefix = len(chosen) > 1
        if not follow:
            for container in chosen:
                if prefix:
                    yield f"==> {container.name} <=="
                yield from container.logs(tail=200).decode("utf-8", "replace").splitlines()
            return
        lines: queue.Queue = queue.Queue()

        def pump(container) -> None:
            buffer = b""
            try:
                for chunk in container.logs(stream=True, follow=True, tail=200):
                    buffer += chunk
                    *whole, buffer = buffer.split(b"\n")
                    for raw in whole:
                        text = raw.decode("utf-8", "replace")
                        lines.put(f"[{container.name}] {text}" if prefix else text)
            except Exception as exc:  # noqa: BLE001 - handed to the reading thread, which raises it
                lines.put(exc)

        for container in chosen:
            threading.Thread(target=pump, args=(container,), daemon=True).start()
        while True:
            item = lines.get()
            if isinstance(item, Exception):
                raise item
            yield item


def _component(container) -> str:
    """`jobmanager` or `taskmanager-<index>`, from our labels."""
    labels = container.labels or {}
    if labels.get(LABEL_COMPONENT) == JOBMANAGER:
        return JOBMANAGER
    return tm_name(int(labels.get(LABEL_INDEX, "0")))


def _pull_with_progress(client, image: str) -> None:
    """`docker pull` with one rich progress bar per layer (on stderr, so stdout stays clean)."""
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

    repository, _, tag = image.rpartition(":") if ":" in image.split("/")[-1] else (image, "", "latest")
    with Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        tasks: dict[str, Any] = {}
        for event in client.api.pull(repository, tag=tag, stream=True, decode=True):
            if "error" in event:
                from docker.errors import APIError

                raise APIError(event["error"])
            layer = event.get("id")
            detail = event.get("progressDetail") or {}
            if not layer or ":" in layer:
                continue
            if layer not in tasks:
                tasks[layer] = bar.add_task(f"{layer} {event.get('status', '')}", total=None)
            bar.update(tasks[layer], description=f"{layer} {event.get('status', '')}",
                       completed=detail.get("current"), total=detail.get("total"))
