"""What defines a container of the docker backend: its labels, its Flink options (FLINK_PROPERTIES), its mounts,
user, ports and healthcheck, and the hash of all that its label carries (so `up` with another shape recreates
what changed). docker-compose.yml is the user-facing equivalent (tests/test_compose_file.py compares the two)."""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from flinklab.cluster.base import tm_name
from flinklab.errors import UsageError
from flinklab.flink.options import cluster_options
from flinklab.flink.readiness import JOBMANAGER
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


def container_labels(project: str, component: str, index: int, config_hash: str) -> dict[str, str]:
    """The labels of a container of `project` (`down` and `status` find ours by them)."""
    return {LABEL_PROJECT: project, LABEL_CREATED_BY: CREATED_BY, LABEL_COMPONENT: component,
            LABEL_INDEX: str(index), LABEL_CONFIG: config_hash,
            "io.flinklab.flink-version": FLINK_VERSION}


def container_spec(settings: Settings, component: str, network: str) -> dict:
    """Everything that defines a container of `component` on `network` (hashed into LABEL_CONFIG)."""
    s = settings
    mounts = {str(s.data_dir): {"bind": str(s.data_dir), "mode": "rw"},
              str(s.workspace_root): {"bind": str(s.workspace_root), "mode": "rw"}}
    spec: dict[str, Any] = {
        "image": s.image,
        "command": component,
        "environment": {"FLINK_PROPERTIES": render_properties(flink_properties(s))},
        "volumes": mounts,
        "user": container_user(s),
        "network": network,
    }
    if component == JOBMANAGER:
        spec["ports"] = {f"{CONTAINER_REST_PORT}/tcp": (s.bind_host, s.rest_port)}
        spec["healthcheck"] = {"test": HEALTHCHECK_TEST, "interval": 5_000_000_000, "timeout": 5_000_000_000,
                               "retries": 30, "start_period": 20_000_000_000}
    return spec


def spec_hash(spec: dict) -> str:
    """A short, stable hash of a container spec."""
    return hashlib.sha256(json.dumps(spec, sort_keys=True, default=str).encode()).hexdigest()[:16]


def component_of(container: Any) -> str:
    """`jobmanager` or `taskmanager-<index>`, from our labels."""
    labels = container.labels or {}
    if labels.get(LABEL_COMPONENT) == JOBMANAGER:
        return JOBMANAGER
    return tm_name(int(labels.get(LABEL_INDEX, "0")))
