"""Shared fixtures.

- `tmp_settings`: Settings whose workspace, data and state dirs are fresh temporary dirs (never the user's).
- `live_settings` / `flink_cluster`: ONE real local Flink cluster per test session, on a free REST port, with its
  own temporary dirs; every discovered lab's CSVs are in its data dir. Live tests take `flink_cluster` (a Settings).
  `flink_cluster` also runs flinklab's SQL gateway process for it, as `flink-up` does.
- `sql_client`: a client of that gateway (no JVM in the test process).
- `helpers.env.wait_for_warm_up(settings)`: until the warm-ups `flink-up` starts in its gateway have ended.
- `in_process_service`: a gateway service (no HTTP) on this test process's JVM, for the module, on that cluster.
- `stranger`: a second Unix user for the module (root only; tests/second_user.py runs code as it).
"""

from __future__ import annotations

import os
import pwd
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import env
from helpers.env import free_port, make_settings, wait_for_warm_up

from flinklab.settings import Settings


@pytest.fixture(scope="session", autouse=True)
def _hangups_delivered() -> Iterator[None]:
    """A suite started under `nohup` (or by a CI runner that ignores SIGHUP) passes the ignored hangup on to every
    process a test starts, and sql-client.sh keeps an inherited SIG_IGN on purpose (`nohup sql-client.sh ...`): the
    tests that hang a client up would then wait for nothing. Processes the tests start see SIGHUP as a terminal
    delivers it; the nohup case is tested on its own (tests/unit/test_client_signals.py sets SIG_IGN itself)."""
    previous = signal.signal(signal.SIGHUP, signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(signal.SIGHUP, previous)


@pytest.fixture(scope="session", autouse=True)
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The session's cache dir, for make_settings and (FLINKLAB_CACHE_DIR) for every console script and gateway
    a test starts with this process's environment: never the user's ~/.cache. HOME is a temporary dir too, so that
    nothing a test starts (the shell's ~/.flink-sql-history, a notebook kernel's ~/.ipython, Jupyter, dbt's
    profiles) writes into the real user's home."""
    base = tmp_path_factory.getbasetemp()
    env.SESSION_CACHE = base / "flinklab-cache"
    home = base / "home"
    home.mkdir(exist_ok=True)
    saved = {key: os.environ.get(key) for key in ("FLINKLAB_CACHE_DIR", "HOME")}
    os.environ.update(FLINKLAB_CACHE_DIR=str(env.SESSION_CACHE), HOME=str(home))
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


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
    from flinklab.usecases.cluster import bring_down, bring_up
    from flinklab.usecases.provision import lab_data_files

    try:
        bring_up(live_settings, data_files=lab_data_files())
        wait_for_warm_up(live_settings)  # every live test starts on a quiet cluster (the warm-up job ended)
        yield live_settings
    finally:
        bring_down(live_settings)


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
