"""`--backend remote`, live: a Flink cluster started WITHOUT flinklab (`docker compose up -d` from
docker-compose.yml on the offline stand-in image), attached to, used for the joins lab, detached from, and found
running and untouched afterwards. Also: data dirs the cluster cannot read, or reads with other contents.

Every flinklab command runs as a subprocess, as a learner would type it.
"""
# ruff: noqa: F811 - pytest fixtures imported from docker_fixtures are redefined as parameters

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.docker_fixtures import docker_client, standin_image  # noqa: F401 - fixtures
from helpers.env import free_port

from flinklab.flink.rest import FlinkRest, RestUnavailable
from flinklab.usecases.provision import lab_data_files

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent  # the checkout


pytestmark = [pytest.mark.docker, pytest.mark.live]

VENV_BIN = Path(sys.executable).parent
LAB_CSVS = lab_data_files()  # every lab's committed CSVs, in the order the data probe reads them


def compose_command() -> list[str]:
    """`docker compose` (v2) where the plugin is there, else `docker-compose` (v1); a test failure without both."""
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True,
                                                 check=False).returncode == 0:
        return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    pytest.fail("Neither `docker compose` nor `docker-compose` is installed; the remote test starts its cluster "
                "with compose. Deselect it with `-m 'not docker'`.", pytrace=False)


class ComposeCluster:
    """A cluster flinklab did not start: compose project `project` from docker-compose.yml."""

    def __init__(self, root: Path, image: str):
        self.root = root
        self.data_dir = root / "data"
        self.workspace = root / "workspace"
        for path in (self.data_dir, self.workspace, root / "home"):
            path.mkdir(parents=True)
        self.port = free_port()
        self.project = f"flinklab-remote-test-{self.port}"
        self.url = f"http://127.0.0.1:{self.port}"
        self.gateway_port = free_port()  # the SQL gateway each attach starts
        self.env = {**os.environ, "FLINK_IMAGE": image, "FLINKLAB_REST_PORT": str(self.port),
                    "FLINKLAB_DATA_DIR": str(self.data_dir), "FLINKLAB_WORKSPACE": str(self.workspace)}
        if os.getuid() == 0:  # pytest's temp dirs are 0700: the image's `flink` user could not enter them
            self.env["FLINKLAB_CONTAINER_USER"] = "0:0"

    def compose(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        cmd = [*compose_command(), "-p", self.project, "-f", str(PROJECT_ROOT / "docker-compose.yml"), *args]
        done = subprocess.run(cmd, cwd=PROJECT_ROOT, env=self.env, capture_output=True, text=True, timeout=timeout,
                              check=False)
        assert done.returncode == 0, (cmd, done.stdout, done.stderr)
        return done

    def wait_ready(self, timeout: float = 300) -> None:
        """Until the JobManager answers with a TaskManager registered (what a teacher checks in the Web UI)."""
        rest = FlinkRest(self.url, timeout=3)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if rest.overview().get("taskmanagers", 0) >= 1:
                    return
            except RestUnavailable:
                pass
            time.sleep(1)
        logs = self.compose("logs", "--tail", "20").stdout
        pytest.fail(f"the compose cluster did not become ready in {timeout}s:\n{logs}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, standin_image: str, docker_client):
    compose = ComposeCluster(tmp_path_factory.mktemp("remote"), standin_image)
    for csv in LAB_CSVS:  # the teacher provides the lab data where the cluster reads it
        shutil.copyfile(csv, compose.data_dir / csv.name)
    compose.compose("up", "-d")
    try:
        compose.wait_ready()
        yield compose
    finally:
        compose.compose("down", timeout=180)


def flinklab(cluster: ComposeCluster, state: Path, *argv: str, data_dir: Path | None = None,
             timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """A flinklab console script as a learner runs it, with its own state dir (and this checkout's code)."""
    env = {"HOME": str(cluster.root / "home"), "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "COLUMNS": "200", "FLINKLAB_STATE_DIR": str(state), "FLINKLAB_WORKSPACE": str(cluster.workspace),
           "FLINKLAB_DATA_DIR": str(data_dir or cluster.data_dir),
           "FLINKLAB_GATEWAY_PORT": str(cluster.gateway_port)}  # never a real user's 8083
    for name in ("PYTHONPATH", "DOCKER_HOST", "JAVA_HOME"):
        if name in os.environ:
            env[name] = os.environ[name]
    return subprocess.run([str(VENV_BIN / argv[0]), *argv[1:]], env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def containers(client, project: str) -> dict[str, tuple[str, str, str, int]]:
    """name -> (id, status, start time, restart count) of the compose project's containers."""
    found = client.containers.list(all=True, filters={"label": f"com.docker.compose.project={project}"})
    return {c.name: (c.id, c.status, c.attrs["State"]["StartedAt"], c.attrs["RestartCount"]) for c in found}


def test_attach_run_check_detach_leaves_the_cluster_untouched(cluster: ComposeCluster, docker_client,
                                                              tmp_path: Path) -> None:
    state = tmp_path / "state"
    before = containers(docker_client, cluster.project)
    assert len(before) == 2 and all(status == "running" for _, status, _, _ in before.values()), before

    earlier = {job.job_id for job in FlinkRest(cluster.url).jobs()}
    up = flinklab(cluster, state, "flink-up", "--backend", "remote", "--rest-url", cluster.url)
    assert up.returncode == 0, up.stdout + up.stderr
    assert "backend: remote" in up.stdout and f"reads all {len(LAB_CSVS)} lab data file(s)" in up.stdout
    assert (state / "cluster.json").is_file()
    probes = [job for job in FlinkRest(cluster.url).jobs() if job.job_id not in earlier]
    assert [job.state for job in probes] == ["FINISHED"], probes  # every file counted by one job
    status = flinklab(cluster, state, "flinklab", "status")
    assert status.returncode == 0, status.stdout + status.stderr
    assert "running, remote (attached)" in status.stdout and cluster.url in status.stdout

    run = flinklab(cluster, state, "flinklab", "run", "joins", "--solution")
    assert run.returncode == 0, run.stdout + run.stderr
    check = flinklab(cluster, state, "flinklab", "check", "joins")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "All 28 checks passed" in check.stdout
    jobs = FlinkRest(cluster.url).jobs()
    assert sum(job.state == "FINISHED" for job in jobs) >= 6  # the probe and the lab ran on this cluster

    logs = flinklab(cluster, state, "flinklab", "logs")
    assert logs.returncode == 2 and f"in its own Web UI: {cluster.url}" in logs.stderr
    assert "Traceback" not in logs.stderr

    down = flinklab(cluster, state, "flink-down")
    assert down.returncode == 0, down.stdout + down.stderr
    assert f"detached from the remote cluster at {cluster.url} (it keeps running)" in down.stdout
    assert not (state / "cluster.json").exists()
    assert containers(docker_client, cluster.project) == before  # same ids, still running, same start times
    assert FlinkRest(cluster.url).overview()["taskmanagers"] == 1


def _refused(result: subprocess.CompletedProcess[str], state: Path, *fragments: str) -> str:
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert not (state / "cluster.json").exists()
    return lines[0]


def test_a_data_dir_the_cluster_cannot_read(cluster: ComposeCluster, tmp_path: Path) -> None:
    elsewhere = tmp_path / "data"  # on this host, with the files, but not mounted into the containers
    elsewhere.mkdir()
    for csv in LAB_CSVS:
        shutil.copyfile(csv, elsewhere / csv.name)
    first = LAB_CSVS[0].name
    result = flinklab(cluster, tmp_path / "state", "flink-up", "--backend", "remote", "--rest-url", cluster.url,
                      "--data-dir", str(elsewhere))
    _refused(result, tmp_path / "state", f"cannot read the lab data file {elsewhere / first}",
             "does not exist", "flinklab fixtures generate --out DIR", "--data-dir")


def test_a_missing_and_a_different_file_are_named(cluster: ComposeCluster, tmp_path: Path) -> None:
    """Sub-dirs of the mounted data dir: the cluster reads them, with one file left out or one row short."""
    missing = cluster.data_dir / "missing-one"
    short = cluster.data_dir / "one-row-short"
    for target in (missing, short):
        target.mkdir()
        for csv in LAB_CSVS:
            shutil.copyfile(csv, target / csv.name)
    (missing / "windows_orders.csv").unlink()
    users = next(csv for csv in LAB_CSVS if csv.name == "joins_users.csv")
    lines = users.read_text().splitlines(keepends=True)
    (short / "joins_users.csv").write_text("".join(lines[:-1]))

    result = flinklab(cluster, tmp_path / "state", "flink-up", "--backend", "remote", "--rest-url", cluster.url,
                      "--data-dir", str(missing))
    _refused(result, tmp_path / "state", f"cannot read the lab data file {missing / 'windows_orders.csv'}")
    result = flinklab(cluster, tmp_path / "state", "flink-up", "--backend", "remote", "--rest-url", cluster.url,
                      "--data-dir", str(short))
    _refused(result, tmp_path / "state", f"{short / 'joins_users.csv'} differs on the cluster",
             f"{len(lines) - 1} rows there, {len(lines)} in {users}")
