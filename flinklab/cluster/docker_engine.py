"""Talking to the Docker engine for the docker backend: an engine that answered, its errors as one line, pulling
an image (its layers' progress told as events), and the containers' logs (followed on one thread per container)."""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator
from typing import Any

from flinklab.cluster.progress import LayerPulled, ProgressFn, Step
from flinklab.errors import ClusterError
from flinklab.flink.readiness import JOBMANAGER
from flinklab.flink.waiting import one_line
from flinklab.settings import Settings

PULL_HINT = "Use `--backend local`, or build the offline stand-in (`flinklab image build-offline`) and set FLINK_IMAGE."


def engine(timeout: int = 60):
    """A Docker client that answered a ping, else ClusterError."""
    import docker
    from docker.errors import DockerException

    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
    except DockerException as exc:
        raise ClusterError(f"The Docker engine does not answer ({one_line(exc, 200)}).",
                           "Start Docker (or check DOCKER_HOST), or use `--backend local`.") from None
    return client


@contextlib.contextmanager
def engine_errors(doing: str) -> Iterator[None]:
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


def pull(client, image: str, say: ProgressFn) -> None:
    """`docker pull`, telling `say` of each layer's progress (LayerPulled events: the face draws them)."""
    repository, _, tag = image.rpartition(":") if ":" in image.split("/")[-1] else (image, "", "latest")
    for event in client.api.pull(repository, tag=tag, stream=True, decode=True):
        if "error" in event:
            from docker.errors import APIError

            raise APIError(event["error"])
        layer = event.get("id")
        detail = event.get("progressDetail") or {}
        if layer and ":" not in layer:
            say(LayerPulled(image, layer, event.get("status", ""), detail.get("current"), detail.get("total")))


def container_logs(chosen: list[Any], follow: bool) -> Iterator[str]:
    """The last 200 lines of each container's log, then (with `follow`) new lines as they come; each line is
    prefixed with its container's name when there are several."""
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


#: How long `--backend auto` waits for the engine to say whether a registry serves the image. The engine asks the
#: registry itself and, where none is reachable, may hang until its client's timeout (10 s) runs out: a registry
#: that answers at all answers a manifest lookup well within this.
REGISTRY_PROBE_SECONDS = 3


def engine_usable(image: str) -> tuple[bool, str]:
    """(True, why) when the engine answers and `image` is present or its registry answers for it.

    `why` is one calm line; when the engine said why it cannot serve, its own words follow on a second line (the
    detail `flink-up --verbose` prints: "dial tcp: lookup registry-1.docker.io ... no such host")."""
    from docker.errors import DockerException, ImageNotFound
    from requests.exceptions import RequestException

    try:
        client = engine(timeout=10)
    except ClusterError as exc:
        return False, f"no Docker engine answers\n{exc.message}"
    try:
        client.images.get(image)
        return True, f"the Docker engine answers and {image} is present"
    except ImageNotFound:
        pass
    except (DockerException, RequestException) as exc:
        return False, f"the Docker engine could not list its images\n{one_line(exc, 300)}"
    client.api.timeout = REGISTRY_PROBE_SECONDS  # docker-py reads it per request
    try:
        client.images.get_registry_data(image)
    except (DockerException, RequestException) as exc:
        # the engine's own words (e.g. "dial tcp: lookup registry-1.docker.io ... no such host"), not the URL
        why = getattr(exc, "explanation", None) or exc
        if not isinstance(exc, DockerException):  # the engine's own APIError is a RequestException too
            why = f"no answer within {REGISTRY_PROBE_SECONDS} s ({one_line(exc, 200)})"
        return False, f"Docker cannot pull the Flink image\n{image} is not present and cannot be pulled: " \
                      f"{one_line(why, 300)}"
    return True, f"the Docker engine answers and {image} can be pulled"


def ensure_image(client: Any, image: str, say: ProgressFn) -> None:
    """Pull `image` when absent, telling `say` how each layer comes along."""
    from docker.errors import APIError, ImageNotFound

    try:
        client.images.get(image)
        return
    except ImageNotFound:
        pass
    say(Step(f"pulling {image} (first start only)"))
    try:
        pull(client, image, say)
        client.images.get(image)
    except (APIError, ImageNotFound) as exc:
        raise ClusterError(f"Cannot pull {image}: {one_line(exc, 160)}", PULL_HINT) from None


def create_container(client: Any, settings: Settings, name: str, component: str, index: int, spec: dict,
                     labels: dict[str, str]) -> Any:
    """Create and start the container `name` of `component` from `spec` (network alias: the component)."""
    from docker.errors import APIError
    from docker.types import EndpointConfig

    kwargs = dict(spec)
    network = kwargs.pop("network")
    aliases = [component] if component == JOBMANAGER else [f"{component}-{index}"]
    try:
        container = client.containers.create(
            name=name,
            hostname=name,
            labels=labels,
            network=network,
            networking_config={network: EndpointConfig(client.api._version, aliases=aliases)},
            detach=True,
            **kwargs,
        )
    except APIError as exc:
        if exc.status_code == 409:
            raise ClusterError(f"A container named {name} already exists and flinklab did not create it.",
                               f"Remove it (`docker rm -f {name}`; `docker compose down` if compose started it)"
                               " or choose another port/FLINKLAB_DOCKER_PROJECT.") from None
        raise ClusterError(f"Cannot create {name}: {one_line(exc, 200)}") from None
    start_container(container, settings)
    return container


def start_container(container: Any, settings: Settings) -> None:
    """Start `container`; a taken REST port is one ClusterError line saying how to choose another."""
    from docker.errors import APIError

    try:
        container.start()
    except APIError as exc:
        text = str(exc)
        if "port is already allocated" in text or "address already in use" in text:
            s = settings
            raise ClusterError(f"Port {s.rest_port} on {s.bind_host} is in use by another program.",
                               "Choose another REST port with `--port P` or FLINKLAB_REST_PORT=P.") from None
        raise ClusterError(f"Cannot start {container.name}: {one_line(exc, 200)}") from None
