"""The gateway's JVM in a container when the host has no Java (flinklab/gateway/java_shim.py).

Unit tests render and execute the shim's shell text; live tests (markers `docker`, `live`) run `flinklab up`
(which starts the gateway), `sql-client.sh` and `flinklab run` as subprocesses whose PATH has no `java` (only the
venv's console scripts and `docker`) against a docker cluster of the offline stand-in image, and check that the
gateway's container goes with the gateway.
"""
# ruff: noqa: F811 - pytest fixtures imported from docker_fixtures are redefined as parameters

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers.docker_fixtures import (  # noqa: F401 - fixtures
    docker_client,
    docker_settings,
    standin_image,
)
from helpers.env import wait_for_warm_up

from flinklab.errors import FlinklabError
from flinklab.flink.java import host_java
from flinklab.flink.rest import FlinkRest
from flinklab.gateway import java_shim
from flinklab.settings import Settings

VENV_BIN = Path(sys.executable).parent
LIVE = [pytest.mark.docker, pytest.mark.live]
TINY_CSV = "1,alpha,10\n2,beta,20\n3,gamma,30\n"


def settings_in(root: Path, **overrides: object) -> Settings:
    for sub in ("workspace", "data", "state"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    return Settings.from_env({"HOME": str(root / "home")}, workspace_root=root / "workspace",
                             data_dir=root / "data", state_dir=root / "state", **overrides)


def bin_dir(root: Path, *, with_docker: bool) -> Path:
    """A PATH with the venv's console scripts (absolute shebangs) and maybe `docker`, and no `java`.

    Not /bin: it is /usr/bin here, where java lives.
    """
    path = root / ("bin-docker" if with_docker else "bin-bare")
    path.mkdir(parents=True, exist_ok=True)
    for name in ("sql-client.sh", "flinklab"):
        (path / name).symlink_to(VENV_BIN / name)
    if with_docker:
        (path / "docker").symlink_to(shutil.which("docker"))
    assert shutil.which("java", path=str(path)) is None
    return path


def no_java_env(settings: Settings, path: Path) -> dict[str, str]:
    """A minimal environment: no JAVA_HOME, PATH without java, the settings' dirs."""
    env = {"HOME": str(settings.workspace_root.parent / "home"), "PATH": str(path), "COLUMNS": "150",
           "FLINKLAB_WORKSPACE": str(settings.workspace_root), "FLINKLAB_DATA_DIR": str(settings.data_dir),
           "FLINKLAB_STATE_DIR": str(settings.state_dir), "FLINKLAB_REST_PORT": str(settings.rest_port),
           "FLINKLAB_GATEWAY_PORT": str(settings.gateway_port), "FLINK_IMAGE": settings.image}
    if "DOCKER_HOST" in os.environ:  # where the engine is, as the user's shell would say
        env["DOCKER_HOST"] = os.environ["DOCKER_HOST"]
    return env


# ---- the shim's text, no engine needed ----------------------------------------------------------------------


def test_shim_mounts_what_the_jvm_touches_with_host_network_and_rm(tmp_path: Path):
    settings = settings_in(tmp_path)
    spec = java_shim.shim_spec(settings, "/usr/bin/docker", "flink:test", env={"HOME": str(tmp_path / "home")},
                               cwd=settings.workspace_root)
    text = java_shim.shim_text(spec)
    assert text.startswith("#!/bin/sh\n")
    assert "exec /usr/bin/docker run --rm -i --init --network host" in text
    assert f"--user {os.getuid()}:{os.getgid()}" in text
    flink_home = Path(os.path.realpath(java_shim.flink_dirs()["FLINK_LIB_DIR"])).parent
    assert f"--volume {flink_home}:{flink_home}:ro" in text  # the jars, config.yaml, log4j-cli.properties
    for path in (settings.workspace_root, settings.data_dir, settings.state_dir):
        assert f"--volume {path}:{path}:rw" in text
    for name in ("_PYFLINK_CONN_INFO_PATH", "FLINK_CONF_DIR", "FLINK_LIB_DIR", "FLINK_OPT_DIR", "FLINK_LOG_DIR"):
        assert f"--env {name} " in text
    assert f"--workdir {settings.workspace_root}" in text
    assert "flink:test -c 'trap \"\" INT; exec java \"$@\"' java \"$@\"" in text
    assert f"{java_shim.LABEL_CLIENT}={java_shim.CLIENT_VALUE}" in text
    subprocess.run(["sh", "-n"], input=text, text=True, check=True)


def test_shim_passes_each_argument_and_the_connection_dir_intact(tmp_path: Path):
    """The shim's shell quoting, executed: a `docker` that prints its arguments one per line."""
    printer = tmp_path / "argv"
    printer.write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\n')
    printer.chmod(0o755)
    spaced = tmp_path / "a dir"
    spaced.mkdir()
    spec = java_shim.ShimSpec(docker=str(printer), image="img", user="1:2", mounts=[(str(spaced), False)])
    settings = settings_in(tmp_path)
    java = java_shim.write_shim(settings, spec) / "bin" / "java"
    conn = tmp_path / "conn dir" / "info"
    env = {"PATH": "", "_PYFLINK_CONN_INFO_PATH": str(conn)}
    args = subprocess.run([str(java), "-cp", "x y.jar", "Main"], env=env, capture_output=True, text=True,
                          check=True).stdout.splitlines()
    assert f"{spaced}:{spaced}:rw" in args
    assert f"--volume={conn.parent}:{conn.parent}:rw" in args
    assert args[-4:] == ["java", "-cp", "x y.jar", "Main"]
    # Without a connection file (someone runs the shim by hand) there is no empty mount.
    args = subprocess.run([str(java), "-version"], env={"PATH": ""}, capture_output=True, text=True,
                          check=True).stdout.splitlines()
    assert not any(a.startswith("--volume=") for a in args)


def test_host_java_follows_java_home_then_path(tmp_path: Path):
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "java").write_text("#!/bin/sh\n")
    (home / "bin" / "java").chmod(0o755)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert host_java({"PATH": str(empty)}) is None
    assert host_java({"PATH": str(empty), "JAVA_HOME": str(home)}) == str(home / "bin" / "java")
    assert host_java({"PATH": str(home / "bin")}) == str(home / "bin" / "java")
    # A JAVA_HOME without a java is no Java, whatever PATH says: PyFlink would try only JAVA_HOME/bin/java.
    assert host_java({"PATH": str(home / "bin"), "JAVA_HOME": str(empty)}) is None


def test_neither_java_nor_docker_is_one_error_naming_both(tmp_path: Path):
    settings = settings_in(tmp_path)
    with pytest.raises(FlinklabError, match="No Java") as info:
        java_shim.gateway_java_home(settings, {"PATH": str(bin_dir(tmp_path, with_docker=False))})
    assert "Install Java 17" in (info.value.hint or "") and "Docker" in (info.value.hint or "")
    assert not (settings.state_dir / java_shim.SHIM_DIR).exists()


def test_host_with_java_writes_no_shim(tmp_path: Path):
    settings = settings_in(tmp_path)
    java = tmp_path / "jdk" / "bin" / "java"  # what PyFlink would start: an executable `java` on PATH
    java.parent.mkdir(parents=True)
    java.write_text("#!/bin/sh\n")
    java.chmod(0o755)
    assert java_shim.gateway_java_home(settings, {"PATH": str(java.parent)}) is None
    assert not (settings.state_dir / java_shim.SHIM_DIR).exists()


# ---- live: a docker cluster, and a gateway without java ---------------------------------------------------


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, standin_image: str, docker_client):
    from flinklab.cluster.docker import DockerBackend
    from flinklab.environment import gateway
    from flinklab.environment.lifecycle import provision
    from flinklab.usecases.provision import lab_data_files

    settings = docker_settings(tmp_path_factory.mktemp("client-container"), standin_image)
    backend = DockerBackend(settings)
    provision(settings, backend, lambda message: None, lab_data_files())  # the data `flinklab run joins` reads
    backend.up()  # the cluster only: the gateway is started by `flinklab up` without Java, in the tests
    try:
        yield settings
    finally:
        gateway.stop(settings)
        backend.down()


def client_containers(docker_client, **labels: str) -> list:
    filters = [f"{java_shim.LABEL_CLIENT}={java_shim.CLIENT_VALUE}"]
    filters += [f"{k}={v}" for k, v in labels.items()]
    # sparse: no inspect per container, so one that goes away while listing is no error
    return docker_client.containers.list(all=True, filters={"label": filters}, sparse=True)


def up_without_java(settings: Settings, tmp_path: Path) -> subprocess.CompletedProcess:
    """`flinklab up` on a host without Java: the cluster runs, so it only starts the gateway, whose JVM must
    then run in a container of the cluster's image."""
    env = no_java_env(settings, bin_dir(tmp_path, with_docker=True))
    return subprocess.run(["flinklab", "up"], env=env, capture_output=True, text=True, timeout=600)


def of_gateway(pid: int) -> dict[str, str]:
    """The label of the containers whose JVM belongs to the gateway process `pid`."""
    return {java_shim.LABEL_CLIENT_PID: str(pid)}


def wait_gone(docker_client, pid: int, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while client_containers(docker_client, **of_gateway(pid)):
        assert time.monotonic() < deadline, f"the gateway's container outlived {what} by {timeout:.0f} s"
        time.sleep(0.5)


@pytest.mark.docker
@pytest.mark.live
def test_without_java_the_gateway_jvm_runs_in_a_container_and_sql_client_uses_it(
        cluster: Settings, docker_client, tmp_path: Path):
    from flinklab.environment import gateway

    settings = cluster
    started = time.monotonic()
    up = up_without_java(settings, tmp_path)
    print(f"\ngateway start with its JVM in a container: {time.monotonic() - started:.1f}s")
    assert up.returncode == 0, up.stdout + up.stderr
    assert "the SQL gateway" in up.stdout
    pid = gateway.running_pid(settings)
    assert pid is not None
    assert len(client_containers(docker_client, **of_gateway(pid))) == 1, "the gateway's JVM runs in one container"
    assert (settings.state_dir / java_shim.SHIM_DIR / "bin" / "java").is_file()

    (settings.data_dir / "tiny.csv").write_text(TINY_CSV)
    ws = settings.workspace_root
    (ws / "ddl.sql").write_text(
        "CREATE TABLE tiny (id INT, name STRING, amount INT) WITH (\n"
        f"  'connector' = 'filesystem', 'path' = '{settings.data_dir / 'tiny.csv'}', 'format' = 'csv');\n")
    (ws / "q.sql").write_text(textwrap.dedent("""\
        SET 'sql-client.execution.result-mode' = 'tableau';
        SET 'execution.runtime-mode' = 'batch';
        SELECT COUNT(*) AS n, SUM(amount) AS total FROM tiny;
        """))
    rest = FlinkRest(settings.rest_url)
    wait_for_warm_up(settings)  # the tiny job flink-up's gateway ran on this cluster, which had run none
    before = {j.job_id for j in rest.jobs()}
    done = subprocess.run(["sql-client.sh", "-i", "ddl.sql", "-f", "q.sql"], cwd=ws, capture_output=True,
                          text=True, timeout=300, env=no_java_env(settings, bin_dir(tmp_path / "c", with_docker=False)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "| n | total |" in done.stdout and "| 3 |    60 |" in done.stdout, done.stdout
    assert "1 row in set" in done.stdout
    new = [j for j in rest.jobs() if j.job_id not in before]
    assert [j.state for j in new] == ["FINISHED"], new

    # the whole lab, then its grade, on a host with only Docker
    env = no_java_env(settings, bin_dir(tmp_path / "lab", with_docker=True))
    done = subprocess.run(["flinklab", "run", "joins", "--solution"], env=env, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    plans = sorted(p.name for p in (settings.workspace_root / "joins").glob("*-plan.json"))
    assert plans == ["interval-plan.json", "regular-plan.json", "temporal-plan.json"]  # written by the JVM
    assert all(p.stat().st_uid == os.getuid() for p in (settings.workspace_root / "joins").glob("*-plan.json"))
    checked = subprocess.run(["flinklab", "check", "joins"], env=env, capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    assert gateway.stop(settings)  # what flink-down does first
    wait_gone(docker_client, pid, "flink-down")


@pytest.mark.docker
@pytest.mark.live
def test_the_gateway_container_goes_with_a_killed_gateway(cluster: Settings, docker_client, tmp_path: Path):
    """The JVM's watchdog ends it when the gateway's Python process dies (SIGKILL); `--rm` removes it."""
    from flinklab.environment import gateway

    up = up_without_java(cluster, tmp_path)
    assert up.returncode == 0, up.stdout + up.stderr
    pid = gateway.running_pid(cluster)
    assert pid is not None and len(client_containers(docker_client, **of_gateway(pid))) == 1
    os.kill(pid, signal.SIGKILL)
    wait_gone(docker_client, pid, "a SIGKILL of the gateway")


@pytest.mark.docker
@pytest.mark.live
def test_without_java_and_docker_flink_up_says_so_in_one_line(cluster: Settings, tmp_path: Path):
    from flinklab.environment import gateway

    gateway.stop(cluster)
    done = subprocess.run(["flinklab", "up"], capture_output=True, text=True, timeout=120,
                          env=no_java_env(cluster, bin_dir(tmp_path, with_docker=False)))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: No Java to run the SQL gateway") and "Install Java 17" in lines[0], lines
