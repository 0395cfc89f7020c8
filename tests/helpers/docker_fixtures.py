"""Fixtures for the live Docker tests (imported by the test modules; conftest.py is shared and not ours).

No image can be pulled on CI machines, so the session builds the offline stand-in once (cached by content tag;
its debootstrap root under /var/tmp so it survives test sessions) and every cluster uses it through `image`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from flinklab.settings import Settings
from helpers.env import free_port

#: Outside pytest's per-session temp dirs on purpose: the debootstrap root is slow to make and never changes.
IMAGE_CACHE = Path(os.environ.get("FLINKLAB_TEST_IMAGE_CACHE", "/var/tmp/flinklab-test-cache"))


def engine_or_fail():
    """A Docker client, or a test FAILURE saying so: these tests prove the Docker backend and must not skip."""
    import docker
    from docker.errors import DockerException

    try:
        client = docker.from_env(timeout=120)
        client.ping()
    except DockerException as exc:
        pytest.fail(
            f"No Docker engine answers ({exc}). The docker tests need one; deselect them with `-m 'not docker'` "
            "on a machine without Docker.",
            pytrace=False,
        )
    return client


@pytest.fixture(scope="session")
def docker_client():
    return engine_or_fail()


@pytest.fixture(scope="session")
def standin_image(docker_client) -> str:
    """The stand-in image's tag (built on first use, instant afterwards)."""
    from flinklab.cluster.image import build_offline_image

    env = dict(os.environ, FLINKLAB_CACHE_DIR=str(IMAGE_CACHE))
    return build_offline_image(env=env).tag


def docker_settings(root: Path, image: str, **overrides: object) -> Settings:
    """Settings with their own dirs under `root` (under /tmp, so the engine can bind-mount them) and free port."""
    for sub in ("workspace", "data", "state"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    values: dict[str, object] = {"rest_port": free_port(), "gateway_port": free_port(), "backend": "docker",
                                 "image": image,
                                 "startup_timeout": 300.0}
    values.update(overrides)
    return Settings.from_env({"HOME": str(root / "home")}, workspace_root=root / "workspace",
                             data_dir=root / "data", state_dir=root / "state", **values)


def our_objects(client, project: str) -> dict[str, list[str]]:
    """Containers, networks and volumes carrying our project label (any state)."""
    label = {"label": f"io.flinklab.project={project}"}
    return {
        "containers": [c.name for c in client.containers.list(all=True, filters=label)],
        "networks": [n.name for n in client.networks.list(filters=label)],
        "volumes": [v.name for v in client.volumes.list(filters=label)],
    }
