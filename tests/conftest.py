"""Shared fixtures.

- `tmp_settings`: Settings whose workspace, data and state dirs are fresh temporary dirs (never the user's).
- `live_settings` / `flink_cluster`: ONE real local Flink cluster per test session, on a free REST port, with its
  own temporary dirs; the fixtures are provisioned into its data dir. Live tests take `flink_cluster` (a Settings).
- `sql_client`: one runner JVM (PyFlink gateway) per test session, pointed at that cluster.
"""

from __future__ import annotations

import socket
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
        **overrides,
    )


@pytest.fixture
def tmp_settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path, rest_port=free_port())


@pytest.fixture(scope="session")
def live_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return make_settings(tmp_path_factory.mktemp("live"), rest_port=free_port(), backend="local")


@pytest.fixture(scope="session")
def flink_cluster(live_settings: Settings):
    """A real local Flink session cluster for the whole test session."""
    from flinklab.cluster.lifecycle import bring_down, bring_up

    bring_up(live_settings)  # provisions the fixtures into its data dir, then starts the cluster
    try:
        yield live_settings
    finally:
        bring_down(live_settings)


@pytest.fixture(scope="session")
def sql_client(flink_cluster: Settings):
    """One PyFlink gateway JVM for all live tests (a fresh session per script is cheap)."""
    from flinklab.sqlclient.runner import SqlClient

    client = SqlClient(flink_cluster)
    try:
        yield client
    finally:
        client.close()
