"""The Docker backend, live on a real engine with the offline stand-in image (marker `docker`).

One cluster for the module, in the order a learner meets things: up, status, SQL on bind-mounted data, the joins
lab graded on the containers, a TaskManager killed mid-query (status names it, the query fails, `up` repairs it),
then `down` leaving nothing with our label. A taken port is checked on a second project.
"""
# ruff: noqa: F811 - pytest fixtures imported from docker_fixtures are redefined as parameters

from __future__ import annotations

import io
import socket
import threading
import time
from pathlib import Path

import pytest
from helpers.docker_fixtures import (  # noqa: F401 - fixtures
    docker_client,
    docker_settings,
    our_objects,
    standin_image,
)
from helpers.resttools import REFUSED_UPLOAD, upload_jar

from flinklab.cluster.base import read_record
from flinklab.cluster.docker import DockerBackend
from flinklab.environment import gateway
from flinklab.environment.lifecycle import bring_up
from flinklab.errors import ClusterError
from flinklab.flink.rest import FlinkRest
from flinklab.settings import Settings
from flinklab.usecases.provision import lab_data_files

pytestmark = [pytest.mark.docker, pytest.mark.live]

TINY_CSV = "1,alpha,10\n2,beta,20\n3,gamma,30\n"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, standin_image: str, docker_client):
    settings = docker_settings(tmp_path_factory.mktemp("docker"), standin_image)
    backend = DockerBackend(settings)
    started = time.monotonic()
    # what flink-up does: provision the lab data, the gateway, the backend's up
    result = bring_up(settings, data_files=lab_data_files())
    print(f"\ndocker flink-up cold: {time.monotonic() - started:.1f}s")
    try:
        yield settings, backend, result
    finally:
        gateway.stop(settings)
        backend.down()


@pytest.fixture(scope="module")
def client(cluster):
    from flinklab.environment.client import SqlClient

    settings, _, _ = cluster
    sql = SqlClient(settings)  # the gateway flink-up started beside the docker cluster
    try:
        yield sql
    finally:
        sql.close()


def run_sql(client, settings: Settings, name: str, sql: str):
    from flinklab.sqlclient.client import run_invocation

    path = settings.workspace_root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(sql)
    out = io.StringIO()
    result = run_invocation(client, out, script_file=path)
    return result, out.getvalue()


def tiny_query(settings: Settings) -> str:
    (settings.data_dir / "tiny.csv").write_text(TINY_CSV)
    return f"""
SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'batch';
CREATE TABLE tiny (id INT, name STRING, amount INT) WITH (
  'connector' = 'filesystem', 'path' = '{settings.data_dir / "tiny.csv"}', 'format' = 'csv');
SELECT COUNT(*) AS n, SUM(amount) AS total FROM tiny;
"""


def test_up_gives_a_ready_cluster_with_one_taskmanager(cluster, docker_client):
    settings, backend, result = cluster
    assert not result.already_running
    st = backend.status()
    assert st.running and st.problems == []
    assert (st.taskmanagers, st.slots_total) == (1, settings.slots)
    record = read_record(settings)
    assert record is not None and record.backend == "docker"
    assert record.image == settings.image and record.details.project == backend.project
    jm = docker_client.containers.get(backend.jm_name())
    bindings = jm.attrs["HostConfig"]["PortBindings"]["8081/tcp"]
    assert bindings == [{"HostIp": "127.0.0.1", "HostPort": str(settings.rest_port)}]
    mounts = {(m["Source"], m["Destination"]) for m in jm.attrs["Mounts"]}
    assert mounts == {(str(settings.data_dir),) * 2, (str(settings.workspace_root),) * 2}


def test_second_up_is_instant_and_changes_nothing(cluster):
    _, backend, _ = cluster
    started = time.monotonic()
    result = backend.up()
    print(f"\ndocker flink-up warm: {time.monotonic() - started:.1f}s")
    assert result.already_running and result.repaired == []


def test_taskmanagers_read_the_bind_mounted_data_dir(cluster, client):
    settings, _, _ = cluster
    result, out = run_sql(client, settings, "tiny/count.sql", tiny_query(settings))
    assert result.ok, out
    assert "|3|60|" in out.replace(" ", ""), out


def test_the_jobmanager_refuses_a_jar_upload(cluster):
    settings, _, _ = cluster
    response = upload_jar(settings.rest_url)  # FLINK_PROPERTIES carry the options table's web.submit.enable: false
    assert (response.status_code, response.json()) == REFUSED_UPLOAD


def test_joins_solution_passes_every_check_on_the_containers(cluster, client):
    from flinklab.course.registry import get_lab
    from flinklab.usecases.check import grade_lab
    from flinklab.usecases.run import run_lab

    settings, _, _ = cluster
    lab = get_lab("joins")
    run = run_lab(settings, lab, solution=True, client=client)
    assert run.ok, [(s.step.id, s.error) for s in run.steps if not s.ok]
    report = grade_lab(settings, lab)
    assert report.all_passed, [(r.name, r.message) for r in report.failures]


def test_killed_taskmanager_fails_the_query_shows_in_status_and_up_repairs_it(cluster, client, docker_client):
    settings, backend, _ = cluster
    tm = backend.tm_name(1)
    rest = FlinkRest(settings.rest_url)
    killed: list[str] = []
    tm_ip = next(ip for ip, name in read_record(settings).details.addresses.items() if name == tm)

    def tasks_running() -> bool:
        # A job is RUNNING before its tasks are deployed: kill the TaskManager only once every task runs on it,
        # else Flink reports a slot that never came (NoResourceAvailableException), not the TaskManager it lost.
        for job in rest.jobs():
            if job.state == "RUNNING":
                vertices = rest.job(job.job_id).get("vertices", [])
                if vertices and all(v.get("status") == "RUNNING" for v in vertices):
                    return True
        return False

    def kill_when_running() -> None:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and not tasks_running():
            time.sleep(0.5)
        docker_client.containers.get(tm).kill()
        killed.append(tm)

    slow = """
SET 'sql-client.execution.result-mode' = 'tableau';
CREATE TABLE slow (x INT) WITH ('connector' = 'datagen', 'rows-per-second' = '1', 'number-of-rows' = '600');
SELECT COUNT(*) AS n FROM slow;
"""
    killer = threading.Thread(target=kill_when_running, daemon=True)
    killer.start()
    result, out = run_sql(client, settings, "tiny/slow.sql", slow)
    killer.join(5)
    assert killed == [tm]
    assert not result.ok
    failed = result.statements[-1]
    # Flink names the TaskManager it lost by its address (heartbeat timeout: `ip:port-id`; lost RPC:
    # `flink@ip:port`); the runner prints it as [ERROR], and the backend maps the address to the container.
    assert tm_ip in (failed.error or ""), failed.error
    assert f"(container {tm})" in backend.name_taskmanagers(failed.error or ""), failed.error
    assert "[ERROR] Could not execute SQL statement." in out

    st = backend.status()
    assert f"TaskManager container {tm} exited (exit code 137)" in st.problems

    repaired = backend.up()
    assert repaired.repaired == [tm]
    st = backend.status()
    assert st.problems == [] and st.running
    result, out = run_sql(client, settings, "tiny/count.sql", tiny_query(settings))
    assert result.ok, out
    assert "|3|60|" in out.replace(" ", ""), out


def test_taken_port_is_a_clear_error_and_leaves_nothing(tmp_path: Path, standin_image: str, docker_client):
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        settings = docker_settings(tmp_path, standin_image, rest_port=port)
        backend = DockerBackend(settings)
        with pytest.raises(ClusterError, match=f"Port {port} on 127.0.0.1 is in use"):
            backend.up()
    # Nothing is left behind: no container, no network, no record.
    assert our_objects(docker_client, backend.project) == {"containers": [], "networks": [], "volumes": []}
    assert read_record(settings) is None
    assert backend.down() is False


def test_down_removes_every_container_and_network_of_ours(cluster, docker_client):
    settings, backend, _ = cluster
    assert our_objects(docker_client, backend.project)["containers"]
    assert backend.down() is True
    assert our_objects(docker_client, backend.project) == {"containers": [], "networks": [], "volumes": []}
    assert read_record(settings) is None
    assert backend.down() is False
    assert not backend.status().running


def test_auto_asks_a_registry_that_never_answers_for_at_most_a_few_seconds(docker_client) -> None:
    """A registry that takes the connection and never answers (a dead mirror, a black-holed route) costs auto at most
    REGISTRY_PROBE_SECONDS, not the engine client's 10 s, and is one calm line with the detail behind it; one that
    refuses is as quick. 127.0.0.0/8 is an insecure registry range by Docker's default, so the engine speaks plain
    HTTP to these sockets."""
    from flinklab.cluster.docker_engine import REGISTRY_PROBE_SECONDS, engine_usable

    with socket.socket() as silent, socket.socket() as closed:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)  # accepts (the kernel's backlog) and never says a word
        closed.bind(("127.0.0.1", 0))  # bound, not listening: connection refused
        for sock, bound in ((silent, REGISTRY_PROBE_SECONDS + 1.5), (closed, 2.0)):
            image = f"127.0.0.1:{sock.getsockname()[1]}/flink:2.2.1-scala_2.12-java17"
            started = time.monotonic()
            usable, why = engine_usable(image)
            took = time.monotonic() - started
            assert not usable and took < bound, (took, why)
            summary, _, detail = why.partition("\n")
            assert summary == "Docker cannot pull the Flink image", why
            assert detail.startswith(f"{image} is not present and cannot be pulled: "), why
