"""docker-compose.yml is usable on its own and describes the same cluster as the Docker backend."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from flinklab.cluster.docker_spec import HEALTHCHECK_TEST, flink_properties, render_properties
from flinklab.errors import UsageError
from flinklab.flink.options import cluster_options
from flinklab.settings import Settings
from flinklab.version import DEFAULT_FLINK_IMAGE

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent  # the checkout

COMPOSE = PROJECT_ROOT / "docker-compose.yml"
_VAR = re.compile(r"\$\{([A-Z_]+):-([^}]*)\}")


def defaults(value: str) -> str:
    """Interpolate `${VAR:-default}` with its default, as compose does when VAR is unset."""
    return _VAR.sub(lambda m: m.group(2), value)


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def props(service: dict) -> dict[str, str]:
    text = defaults(service["environment"]["FLINK_PROPERTIES"])
    pairs = [line.split(":", 1) for line in text.splitlines() if line.strip()]
    return {k.strip(): v.strip() for k, v in pairs}


def test_named_project_and_two_services(compose):
    # compose v1 rejects a top-level `name:`; v1 and v2 both take the project name from .env
    assert "name" not in compose
    env = dict(line.split("=", 1) for line in (PROJECT_ROOT / ".env").read_text().splitlines() if "=" in line)
    assert env["COMPOSE_PROJECT_NAME"] == "flinklab"
    assert set(compose["services"]) == {"jobmanager", "taskmanager", "sql-gateway"}
    for name, service in compose["services"].items():
        assert defaults(service["image"]) == DEFAULT_FLINK_IMAGE
        assert service["labels"]["io.flinklab.project"] == "flinklab"
        assert service["labels"]["io.flinklab.component"] == name
        if name != "sql-gateway":
            assert service["command"] == name


def test_flinks_own_sql_gateway_is_opt_in_and_points_at_the_jobmanager(compose):
    gateway = compose["services"]["sql-gateway"]
    assert gateway["profiles"] == ["gateway"]  # `docker compose up -d` starts the cluster only
    command = gateway["command"]
    assert command[:2] == ["/opt/flink/bin/sql-gateway.sh", "start-foreground"]
    assert "-Drest.address=jobmanager" in command and "-Dsql-gateway.endpoint.rest.port=8083" in command
    assert Settings.from_env({"HOME": "/nonexistent"}).gateway_port == 8083


def test_rest_published_on_loopback_only(compose):
    ports = [defaults(p) for s in compose["services"].values() for p in s.get("ports", [])]
    assert sorted(ports) == ["127.0.0.1:8081:8081", "127.0.0.1:8083:8083"]


def test_mounts_are_binds_at_identical_paths(compose):
    for service in compose["services"].values():
        binds = service["volumes"]
        assert {defaults(b["source"]) for b in binds} == {"/opt/lab/fixtures/data", "/root/flink"}
        for bind in binds:
            assert bind["type"] == "bind" and bind["source"] == bind["target"]


def test_jobmanager_healthcheck_asks_overview(compose):
    test = compose["services"]["jobmanager"]["healthcheck"]["test"]
    assert test[0] == "CMD-SHELL" and "/overview" in test[1] and "/dev/tcp" in test[1]
    assert " ".join(test[1].split()) == " ".join(HEALTHCHECK_TEST[1].split())


def test_flink_properties_have_no_spaces_and_match_the_options_table(compose):
    settings = Settings.from_env({"HOME": "/nonexistent"})
    table = cluster_options(settings)  # the one table local and docker derive from
    for name in ("jobmanager", "taskmanager"):
        service = compose["services"][name]
        found = props(service)
        assert all(value and not re.search(r"\s", value) for value in found.values()), found
        assert {key: found.get(key) for key in table} == table
        # the rest is the container's own: the JobManager's name on the compose network
        assert {key: value for key, value in found.items() if key not in table} == {
            "jobmanager.rpc.address": "jobmanager"}
        assert found == flink_properties(settings)  # the docker backend sets the same, in the same order


def test_backend_refuses_values_with_spaces():
    assert render_properties({"a.b": "1"}) == "a.b: 1\n"
    with pytest.raises(UsageError, match="whitespace"):
        render_properties({"jobmanager.memory.process.size": "1 g"})


@pytest.mark.docker
def test_compose_cli_accepts_the_file(tmp_path: Path):
    """The real compose CLI (v2 plugin or Debian's v1 `docker-compose`) validates the file as it is."""
    v2 = ["docker", "compose", "version"]
    if shutil.which("docker") and subprocess.run(v2, check=False, capture_output=True).returncode == 0:
        cmd = ["docker", "compose"]
    elif shutil.which("docker-compose"):
        cmd = ["docker-compose"]
    else:
        pytest.fail("Neither `docker compose` nor `docker-compose` is installed.", pytrace=False)
    proc = subprocess.run([*cmd, "-f", str(COMPOSE), "config"], check=False, capture_output=True, text=True,
                          cwd=PROJECT_ROOT, env={"PATH": "/usr/bin:/bin:/usr/local/bin", "FLINK_IMAGE": "x:y"})
    assert proc.returncode == 0, proc.stderr
    rendered = yaml.safe_load(proc.stdout)
    assert rendered["services"]["jobmanager"]["image"] == "x:y"
    assert "127.0.0.1:8081:8081" in str(rendered["services"]["jobmanager"]["ports"])
