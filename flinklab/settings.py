"""One settings object, built once from environment variables and CLI options, passed down everywhere.

Tests build their own :class:`Settings` pointing at temporary dirs instead of patching globals.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from flinklab.errors import UsageError
from flinklab.version import DEFAULT_FLINK_IMAGE

DEFAULT_DATA_DIR = Path("/opt/lab/fixtures/data")
DEFAULT_REST_PORT = 8081
DEFAULT_GATEWAY_PORT = 8083
#: The JIT of the JVMs flinklab starts on this host (the local cluster's, the gateway's): the quick compiler only.
#: Their work is many short jobs and plans, never long enough for the optimising compiler to pay for itself: it
#: spent half of their CPU at start-up and made no warm call faster (the figures: docs/performance.md).
QUICK_JIT = "-XX:TieredStopAtLevel=1"
#: The gateway JVM holds planners, not data: a small heap and the serial collector keep it near 500 MiB resident
#: (PyFlink's defaults let it grow past 1.3 GiB).
DEFAULT_GATEWAY_JVM_ARGS = f"-Xmx512m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=96m {QUICK_JIT}"
#: Process sizes of the cluster's JVMs, sized for the labs (a few thousand rows): the JobManager gets a 192 MiB heap,
#: the TaskManager 288 MiB of heap for 4 slots (Flink's split of 1280m), each well under 700 MiB resident.
DEFAULT_JM_MEMORY = "768m"
DEFAULT_TM_MEMORY = "1280m"
#: Steps `flinklab run` runs at once: each hides its planning and result fetching behind another's job; more than 3
#: was no faster on 2 cores (the figures: docs/performance.md).
DEFAULT_RUN_PARALLEL = 3


#: The one list of cluster backends, in `auto`'s order of preference: name -> "module:Class". Adding a backend = one
#: module implementing flinklab.cluster.base.ClusterBackend + one line here. Entries are import paths, not classes,
#: so listing the names (validate() checks `--backend` against them) imports no backend module and none of their
#: dependencies (the Docker SDK); flinklab.cluster.registry loads them. It is here, in the ground, because the
#: settings validate a name against it and import nothing above themselves.
BACKENDS: dict[str, str] = {
    "remote": "flinklab.cluster.remote:RemoteBackend",  # attach to a cluster flinklab did not start
    "docker": "flinklab.cluster.docker:DockerBackend",  # containers of the Flink image
    "local": "flinklab.cluster.local:LocalBackend",  # JVMs from the PyPI Flink (the fallback)
}


def backend_choices() -> tuple[str, ...]:
    """`auto` and every registered backend (BACKENDS)."""
    return ("auto", *BACKENDS)


#: Every environment variable flinklab reads, and what it sets. Nothing outside this module reads os.environ for
#: flinklab's own settings; docs/settings.md lists each of these (a test checks it).
ENV_VARS: dict[str, str] = {
    "FLINKLAB_WORKSPACE": "workspace_root",
    "FLINKLAB_DATA_DIR": "data_dir",
    "FLINKLAB_STATE_DIR": "state_dir",
    "XDG_STATE_HOME": "state_dir (default base)",
    "FLINKLAB_REST_HOST": "rest_host",
    "FLINKLAB_REST_PORT": "rest_port",
    "FLINKLAB_REST_URL": "remote_url",
    "FLINKLAB_GATEWAY_PORT": "gateway_port",
    "FLINKLAB_GATEWAY_JVM_ARGS": "gateway_jvm_args",
    "FLINKLAB_BIND_HOST": "bind_host",
    "FLINKLAB_BACKEND": "backend",
    "FLINKLAB_TASKMANAGERS": "taskmanagers",
    "FLINKLAB_SLOTS": "slots",
    "FLINKLAB_RUN_PARALLEL": "run_parallel",
    "FLINKLAB_JM_MEMORY": "jobmanager_memory",
    "FLINKLAB_TM_MEMORY": "taskmanager_memory",
    "FLINK_IMAGE": "image",
    "FLINKLAB_STARTUP_TIMEOUT": "startup_timeout",
    "FLINKLAB_SHELL_HEARTBEAT_SECONDS": "shell_heartbeat",
    "FLINKLAB_DOCKER_PROJECT": "docker_project",
    "FLINKLAB_CONTAINER_USER": "container_user",
    "FLINKLAB_CACHE_DIR": "cache_dir",
    "XDG_CACHE_HOME": "cache_dir (default base)",
    "FLINKLAB_DEBIAN_MIRROR": "debian_mirror",
    "FLINKLAB_SHARED": "shared",
}


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME", str(Path.home())))


def _default_state_dir(env: Mapping[str, str]) -> Path:
    base = env.get("XDG_STATE_HOME") or str(_home(env) / ".local" / "state")
    return Path(base) / "flinklab"


def _default_cache_dir(env: Mapping[str, str]) -> Path:
    base = env.get("XDG_CACHE_HOME") or str(_home(env) / ".cache")
    return Path(base) / "flinklab"


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("", "0", "false", "no", "off")


def _bool(env: Mapping[str, str], key: str) -> bool:
    raw = (env.get(key) or "").strip().lower()
    if raw in _TRUE or raw in _FALSE:
        return raw in _TRUE
    raise UsageError(f"{key}={env.get(key)!r} is neither true nor false.", f"Set {key}=1 or {key}=0, or unset it.")


def _int(env: Mapping[str, str], key: str, default: int) -> int:
    raw = env.get(key)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise UsageError(f"{key}={raw!r} is not a whole number.", f"Unset {key} or give it a number.") from None


@dataclass(frozen=True)
class Settings:
    """Paths, endpoint and cluster shape. Every field has an env var (see :meth:`from_env`)."""

    workspace_root: Path  # lab workspaces are workspace_root / LAB  (FLINKLAB_WORKSPACE)
    data_dir: Path  # where the CSVs are provisioned and read by the TaskManagers  (FLINKLAB_DATA_DIR)
    state_dir: Path  # cluster config, logs, pids; never inside the repo  (FLINKLAB_STATE_DIR)
    rest_host: str = "127.0.0.1"  # FLINKLAB_REST_HOST: where clients reach the REST endpoint
    rest_port: int = 8081  # FLINKLAB_REST_PORT
    gateway_port: int = DEFAULT_GATEWAY_PORT  # FLINKLAB_GATEWAY_PORT: the SQL gateway's; 0 = none
    gateway_jvm_args: str = DEFAULT_GATEWAY_JVM_ARGS  # FLINKLAB_GATEWAY_JVM_ARGS: its JVM's options
    bind_host: str = "127.0.0.1"  # FLINKLAB_BIND_HOST: every port binds here unless asked otherwise
    backend: str = "auto"  # FLINKLAB_BACKEND: auto | a name in BACKENDS
    remote_url: str = ""  # FLINKLAB_REST_URL: the running cluster `--backend remote` attaches to
    taskmanagers: int = 1  # FLINKLAB_TASKMANAGERS
    slots: int = 4  # FLINKLAB_SLOTS: slots per TaskManager
    run_parallel: int = DEFAULT_RUN_PARALLEL  # FLINKLAB_RUN_PARALLEL: steps `flinklab run` runs at once
    jobmanager_memory: str = DEFAULT_JM_MEMORY  # FLINKLAB_JM_MEMORY (jobmanager.memory.process.size)
    taskmanager_memory: str = DEFAULT_TM_MEMORY  # FLINKLAB_TM_MEMORY (taskmanager.memory.process.size)
    image: str = DEFAULT_FLINK_IMAGE  # FLINK_IMAGE: the Docker backend's image
    startup_timeout: float = 120.0  # FLINKLAB_STARTUP_TIMEOUT seconds
    #: FLINKLAB_SHELL_HEARTBEAT_SECONDS: how often the interactive shell tells the gateway its session is in use
    #: (three missed in a row, the gateway is gone: one line, exit 2)
    shell_heartbeat: float = 5.0
    docker_project: str = ""  # FLINKLAB_DOCKER_PROJECT: the docker backend's project name (default from the port)
    container_user: str = ""  # FLINKLAB_CONTAINER_USER: uid[:gid] in the containers (default: see docker.py)
    cache_dir: Path = field(default=Path.home() / ".cache" / "flinklab")  # FLINKLAB_CACHE_DIR (stand-in image)
    debian_mirror: str = ""  # FLINKLAB_DEBIAN_MIRROR: for the stand-in image (default: this machine's apt source)
    #: FLINKLAB_SHARED / `flink-up --shared`: the local cluster's REST API behind mutual TLS (flinklab.flink.tls);
    #: asked of `flink-up` only: later commands learn it from the cluster record
    shared: bool = False

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Build settings from `env` (default: os.environ); non-None `overrides` (CLI options) win."""
        env = os.environ if env is None else env
        home = _home(env)
        settings = cls(
            workspace_root=Path(env.get("FLINKLAB_WORKSPACE") or home / "flink"),
            data_dir=Path(env.get("FLINKLAB_DATA_DIR") or DEFAULT_DATA_DIR),
            state_dir=Path(env.get("FLINKLAB_STATE_DIR") or _default_state_dir(env)),
            rest_host=env.get("FLINKLAB_REST_HOST") or "127.0.0.1",
            rest_port=_int(env, "FLINKLAB_REST_PORT", DEFAULT_REST_PORT),
            gateway_port=_int(env, "FLINKLAB_GATEWAY_PORT", DEFAULT_GATEWAY_PORT),
            gateway_jvm_args=env.get("FLINKLAB_GATEWAY_JVM_ARGS") or DEFAULT_GATEWAY_JVM_ARGS,
            remote_url=env.get("FLINKLAB_REST_URL") or "",
            bind_host=env.get("FLINKLAB_BIND_HOST") or "127.0.0.1",
            backend=env.get("FLINKLAB_BACKEND") or "auto",
            taskmanagers=_int(env, "FLINKLAB_TASKMANAGERS", 1),
            slots=_int(env, "FLINKLAB_SLOTS", 4),
            run_parallel=_int(env, "FLINKLAB_RUN_PARALLEL", DEFAULT_RUN_PARALLEL),
            jobmanager_memory=env.get("FLINKLAB_JM_MEMORY") or DEFAULT_JM_MEMORY,
            taskmanager_memory=env.get("FLINKLAB_TM_MEMORY") or DEFAULT_TM_MEMORY,
            image=env.get("FLINK_IMAGE") or DEFAULT_FLINK_IMAGE,
            startup_timeout=float(_int(env, "FLINKLAB_STARTUP_TIMEOUT", 120)),
            shell_heartbeat=float(_int(env, "FLINKLAB_SHELL_HEARTBEAT_SECONDS", 5)),
            docker_project=env.get("FLINKLAB_DOCKER_PROJECT") or "",
            container_user=env.get("FLINKLAB_CONTAINER_USER") or "",
            cache_dir=Path(env.get("FLINKLAB_CACHE_DIR") or _default_cache_dir(env)),
            debian_mirror=env.get("FLINKLAB_DEBIAN_MIRROR") or "",
            shared=_bool(env, "FLINKLAB_SHARED"),
        )
        settings = settings.with_overrides(**overrides)
        settings.validate()
        return settings

    def with_overrides(self, **overrides: object) -> Settings:
        """A copy with every non-None override applied (paths given as str become Path)."""
        clean = {}
        for key, value in overrides.items():
            if value is None:
                continue
            if key in ("workspace_root", "data_dir", "state_dir", "cache_dir"):
                value = Path(str(value)).expanduser()
            clean[key] = value
        return replace(self, **clean) if clean else self

    def validate(self) -> None:
        choices = backend_choices()
        if self.backend not in choices:
            raise UsageError(f"Unknown backend {self.backend!r}.", f"Choose one of: {', '.join(choices)}.")
        if not 0 < self.rest_port < 65536:
            raise UsageError(f"REST port {self.rest_port} is out of range.", "Use a port between 1 and 65535.")
        if not 0 <= self.gateway_port < 65536:
            raise UsageError(f"Gateway port {self.gateway_port} is out of range.",
                             "Use a port between 1 and 65535 (0: no SQL gateway).")
        if self.taskmanagers < 1 or self.slots < 1:
            raise UsageError("A cluster needs at least 1 TaskManager with at least 1 slot.")
        if self.run_parallel < 1:
            raise UsageError(f"Cannot run {self.run_parallel} steps at once.", "Use 1 or more (1: one at a time).")

    @property
    def rest_url(self) -> str:
        """Where these settings would put a cluster's REST endpoint (a running cluster's, https when it is shared,
        is in its record: flinklab.cluster.base.resolve_rest_url)."""
        return f"http://{self.rest_host}:{self.rest_port}"

    @property
    def gateway_url(self) -> str:
        """Where clients reach flinklab's SQL gateway (it runs on this machine whatever the backend)."""
        return f"http://127.0.0.1:{self.gateway_port}"

    def workspace(self, lab: str) -> Path:
        """The lab's workspace dir, e.g. /root/flink/joins."""
        return self.workspace_root / lab

