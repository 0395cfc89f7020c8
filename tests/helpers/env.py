"""The tests' environments: free ports, Settings over temporary dirs, and a console script's environment for them."""

from __future__ import annotations

import os
import socket
from pathlib import Path

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
        # (flinklab/gateway/cds.py) is dumped once, by the first gateway that stops; never the user's ~/.cache
        **{"cache_dir": SESSION_CACHE or root / "cache", **overrides},
    )


#: the session's cache dir (set by `_session_cache` as the session starts)
SESSION_CACHE: Path | None = None


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
