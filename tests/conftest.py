"""Shared fixtures.

- `tmp_settings`: Settings whose workspace, data and state dirs are fresh temporary dirs (never the user's).
- `live_settings` / `flink_cluster`: ONE real local Flink cluster per test session, on a free REST port, with its
  own temporary dirs; every discovered lab's CSVs are in its data dir. Live tests take `flink_cluster` (a Settings).
  `flink_cluster` also runs flinklab's SQL gateway process for it, as `flink-up` does.
- `sql_client`: a client of that gateway (no JVM in the test process).
- `wait_for_warm_up(settings)`: until the warm-ups `flink-up` starts in its gateway have ended.
- `in_process_service`: a gateway service (no HTTP) on this test process's JVM, for the module, on that cluster.
- `stranger`: a second Unix user for the module (root only; tests/second_user.py runs code as it).
"""

from __future__ import annotations

import os
import pwd
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from flinklab.settings import Settings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_settings(root: Path, **overrides: object) -> Settings:
    for sub in ("workspace", "data", "state"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    env = {"HOME": str(root / "home")}
    return Settings.from_env(
        env,
        workspace_root=root / "workspace",
        data_dir=root / "data",
        state_dir=root / "state",
        # shared by the tests of a session (under pytest's temp base): the SQL gateway's class-data archive
        # (flinklab/gateway/jvm_archive.py) is dumped once, by the first gateway that stops; never the user's ~/.cache
        **{"cache_dir": SESSION_CACHE or root / "cache", **overrides},
    )


#: the session's cache dir (set by `_session_cache` as the session starts)
SESSION_CACHE: Path | None = None


@pytest.fixture(scope="session", autouse=True)
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The session's cache dir, for make_settings and (FLINKLAB_CACHE_DIR) for every console script and gateway
    a test starts with this process's environment: never the user's ~/.cache."""
    global SESSION_CACHE
    SESSION_CACHE = tmp_path_factory.getbasetemp() / "flinklab-cache"
    saved = os.environ.get("FLINKLAB_CACHE_DIR")
    os.environ["FLINKLAB_CACHE_DIR"] = str(SESSION_CACHE)
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("FLINKLAB_CACHE_DIR", None)
        else:
            os.environ["FLINKLAB_CACHE_DIR"] = saved


def settings_env(settings: Settings) -> dict[str, str]:
    """This process's environment pointed at `settings`' dirs and ports, for the console scripts it runs."""
    env = dict(os.environ)
    env.update(
        FLINKLAB_STATE_DIR=str(settings.state_dir),
        FLINKLAB_REST_PORT=str(settings.rest_port),
        FLINKLAB_GATEWAY_PORT=str(settings.gateway_port),
        FLINKLAB_WORKSPACE=str(settings.workspace_root),
        FLINKLAB_DATA_DIR=str(settings.data_dir),
        FLINKLAB_CACHE_DIR=str(settings.cache_dir),
    )
    return env


@pytest.fixture
def tmp_settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path, rest_port=free_port(), gateway_port=free_port())


@pytest.fixture(scope="session")
def live_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return make_settings(
        tmp_path_factory.mktemp("live"), rest_port=free_port(), gateway_port=free_port(), backend="local"
    )


@pytest.fixture(scope="session")
def flink_cluster(live_settings: Settings):
    """A real local Flink session cluster and its SQL gateway for the whole test session, as `flink-up` starts
    them (every discovered lab's CSVs provisioned into its data dir)."""
    from flinklab.course.data import lab_data_files
    from flinklab.usecases.cluster import bring_down, bring_up

    try:
        bring_up(live_settings, data_files=lab_data_files())
        wait_for_warm_up(live_settings)  # every live test starts on a quiet cluster (the warm-up job ended)
        yield live_settings
    finally:
        bring_down(live_settings)


def wait_for_warm_up(settings: Settings, timeout: float = 300.0) -> dict:
    """Until the gateway's warm-ups (flinklab/gateway/warmup.py) that flink-up started have ended; their state."""
    import time

    from flinklab.access import read_token
    from flinklab.sqlclient.protocol import GatewayClient

    client = GatewayClient(settings.gateway_url, token=lambda: read_token(settings.state_dir))
    deadline = time.monotonic() + timeout
    try:
        while True:
            state = client.warm_up(start=False)
            if "running" not in (state["state"], state["planner"]["state"]) or time.monotonic() > deadline:
                return state
            time.sleep(0.2)
    finally:
        client.close()


@pytest.fixture(scope="module")
def in_process_service(flink_cluster: Settings, tmp_path_factory: pytest.TempPathFactory):
    """A gateway service on this test process's JVM (the one the suite's other in-process services share)."""
    from flinklab.cluster.base import resolve_rest_url
    from flinklab.gateway.server import build_service

    service = build_service(resolve_rest_url(flink_cluster),
                            flink_cluster.with_overrides(state_dir=tmp_path_factory.mktemp("gw")))
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture(scope="session")
def sql_client(flink_cluster: Settings):
    """A client of the session's gateway (a fresh gateway session per script is cheap)."""
    from flinklab.environment.client import LabSqlClient

    client = LabSqlClient(flink_cluster)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture(scope="module")
def stranger() -> Iterator[pwd.struct_passwd]:
    """A second Unix user, created for the module and removed after (root only: see tests/second_user.py)."""
    name = f"flinklab-t{os.getpid()}"
    subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
    try:
        yield pwd.getpwnam(name)
    finally:
        subprocess.run(["userdel", name], check=False)
