"""The local backend against real JVMs: the session cluster (shared fixture) and ONE extra small cluster for the
destructive tests (kill a TaskManager, repair, down). Pre-flight failures are tested without booting anything."""

from __future__ import annotations

import http.server
import json
import os
import signal
import socket
import threading
import time
from pathlib import Path

import pytest
from helpers.env import free_port, make_settings
from typer.testing import CliRunner

from flinklab.cli.app import app
from flinklab.cli.cluster import down_app
from flinklab.cluster.base import read_record
from flinklab.cluster.local import LocalBackend, find_ours, is_ours
from flinklab.cluster.waits import (
    Diagnostics,
    RestAnswers,
    TaskManagersRegistered,
    wait_until,
)
from flinklab.errors import ClusterError
from flinklab.flink.java import find_java
from flinklab.flink.procs import port_is_free
from flinklab.flink.rest import FlinkRest
from flinklab.flink.waits import ClusterStartError, tail_lines
from flinklab.settings import Settings
from flinklab.version import FLINK_VERSION

runner = CliRunner()


def cli_env(settings: Settings) -> dict[str, str]:
    return {
        "FLINKLAB_STATE_DIR": str(settings.state_dir),
        "FLINKLAB_DATA_DIR": str(settings.data_dir),
        "FLINKLAB_WORKSPACE": str(settings.workspace_root),
        "FLINKLAB_REST_PORT": str(settings.rest_port),
        "FLINKLAB_GATEWAY_PORT": str(settings.gateway_port),
    }


def recorded_pids(settings: Settings) -> dict[str, int]:
    record = read_record(settings)
    assert record is not None
    return {"jobmanager": record.details.jobmanager_pid, **record.details.taskmanager_pids}


def _loopback(hex_addr: str) -> str:
    """Decode a /proc/net/tcp{,6} local address (32-bit words in host byte order) to an IP string."""
    raw = bytes.fromhex(hex_addr)
    swapped = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
    return socket.inet_ntop(socket.AF_INET if len(raw) == 4 else socket.AF_INET6, swapped)


def listening_sockets(pids: list[int]) -> list[tuple[str, int]]:
    """(ip, port) of every LISTEN socket held by `pids`, read from /proc (no psutil on the machine)."""
    inodes = set()
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            cols = line.split()
            local, state, inode = cols[1], cols[3], cols[9]
            if state == "0A" and inode in inodes:
                addr, port = local.split(":")
                found.append((_loopback(addr), int(port, 16)))
    return found


# ------------------------------------------------------------------------------- the session cluster


@pytest.mark.live
def test_session_cluster_status(flink_cluster: Settings) -> None:
    st = LocalBackend(flink_cluster).status()
    assert st.running and st.problems == []
    assert st.flink_version == FLINK_VERSION == "2.2.1"
    assert (st.taskmanagers, st.expected_taskmanagers, st.slots_total) == (1, 1, 4)
    assert st.rest_url == f"http://127.0.0.1:{flink_cluster.rest_port}"


@pytest.mark.live
def test_status_command_on_the_running_cluster(flink_cluster: Settings) -> None:
    result = runner.invoke(app, ["status"], env=cli_env(flink_cluster))
    assert result.exit_code == 0, result.output
    assert "running (local)" in result.output
    assert "TaskManagers:  1 of 1" in result.output and "slots:         4 total" in result.output
    assert "Flink:         2.2.1" in result.output


@pytest.mark.live
def test_second_up_says_already_running_and_changes_nothing(flink_cluster: Settings) -> None:
    before = recorded_pids(flink_cluster)
    result = LocalBackend(flink_cluster).up()
    assert result.already_running and result.repaired == []
    assert recorded_pids(flink_cluster) == before
    assert all(is_ours(pid, flink_cluster.state_dir / "local" / "conf") for pid in before.values())
    cli = runner.invoke(app, ["up"], env=cli_env(flink_cluster))
    assert cli.exit_code == 0, cli.output
    assert "already running" in cli.output and "backend: local" in cli.output
    assert f"http://127.0.0.1:{flink_cluster.rest_port}" in cli.output
    assert recorded_pids(flink_cluster) == before


@pytest.mark.live
@pytest.mark.parametrize(
    ("change", "asked"),
    [({"taskmanagers": 2}, "with 2 TaskManager(s) x 4 slots"), ({"slots": 2}, "with 1 TaskManager(s) x 2 slots"),
     ({"rest_port": "free"}, "with 1 TaskManager(s) x 4 slots")],
)
def test_up_with_another_shape_or_port_is_refused_and_restarts_nothing(
    flink_cluster: Settings, change: dict, asked: str
) -> None:
    before = recorded_pids(flink_cluster)
    if change.get("rest_port") == "free":
        change = {"rest_port": free_port()}
    other = flink_cluster.with_overrides(**change)
    with pytest.raises(ClusterError) as info:
        LocalBackend(other).up()
    port = flink_cluster.rest_port
    assert info.value.message == (f"A local cluster is recorded on port {port} with 1 TaskManager(s) x 4 slots; "
                                  f"asked for port {other.rest_port} {asked}.")
    assert "flink-down" in info.value.hint and f"--port {port} --taskmanagers 1 --slots 4" in info.value.hint
    assert recorded_pids(flink_cluster) == before
    assert LocalBackend(flink_cluster).status().problems == []


@pytest.mark.live
def test_every_port_of_the_cluster_binds_loopback_only(flink_cluster: Settings) -> None:
    sockets = listening_sockets(list(recorded_pids(flink_cluster).values()))
    assert ("127.0.0.1", flink_cluster.rest_port) in {
        (ip.removeprefix("::ffff:"), port) for ip, port in sockets
    }, sockets
    # JobManager: REST, RPC, blob; TaskManager: RPC, data, ... — none on a wildcard or external address.
    assert len(sockets) >= 3
    assert all(ip in ("127.0.0.1", "::ffff:127.0.0.1") for ip, _ in sockets), sockets


@pytest.mark.live
def test_logs_are_in_the_state_dir(flink_cluster: Settings) -> None:
    files = LocalBackend(flink_cluster).log_files()
    assert set(files) == {"jobmanager", "taskmanager-1"}
    assert all(path.is_relative_to(flink_cluster.state_dir) for path in files.values())
    assert f"Rest endpoint listening at 127.0.0.1:{flink_cluster.rest_port}" in files["jobmanager"].read_text()
    result = runner.invoke(app, ["logs", "taskmanager"], env=cli_env(flink_cluster))
    assert result.exit_code == 0 and "TaskExecutor" in result.output


# ------------------------------------------------------------------ one extra cluster, destructive tests


@pytest.mark.live
def test_kill_a_taskmanager_then_up_repairs_and_down_leaves_nothing(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, rest_port=free_port(), backend="local", slots=2,
                             taskmanager_memory="1024m")
    conf_dir = settings.state_dir / "local" / "conf"
    backend = LocalBackend(settings)
    try:
        start = time.monotonic()
        result = backend.up()
        print(f"\nlocal cluster boot (up to ready): {time.monotonic() - start:.1f}s")
        assert not result.already_running and result.status.slots_total == 2
        pids = recorded_pids(settings)

        os.kill(pids["taskmanager-1"], signal.SIGKILL)
        deadline = time.monotonic() + 10
        while is_ours(pids["taskmanager-1"], conf_dir) and time.monotonic() < deadline:
            time.sleep(0.1)
        st = LocalBackend(settings).status()
        assert f"TaskManager taskmanager-1 (pid {pids['taskmanager-1']}) is not running" in st.problems
        cli = runner.invoke(app, ["status"], env=cli_env(settings))
        assert cli.exit_code == 1 and "is not running" in cli.output

        # A repair that times out stops the TaskManager it spawned and nothing else.
        with pytest.raises(ClusterStartError, match="Timed out after 1s"):
            LocalBackend(settings.with_overrides(startup_timeout=1.0)).up()
        spawned = recorded_pids(settings)["taskmanager-1"]
        assert spawned != pids["taskmanager-1"] and not is_ours(spawned, conf_dir)
        assert is_ours(pids["jobmanager"], conf_dir)

        start = time.monotonic()
        repaired = LocalBackend(settings).up()
        print(f"repair (restart one TaskManager until it registers): {time.monotonic() - start:.1f}s")
        assert repaired.repaired == ["taskmanager-1"] and not repaired.already_running
        after = recorded_pids(settings)
        assert after["jobmanager"] == pids["jobmanager"]
        assert after["taskmanager-1"] != pids["taskmanager-1"] and is_ours(after["taskmanager-1"], conf_dir)
        assert LocalBackend(settings).status().problems == []

        down = runner.invoke(down_app, [], env=cli_env(settings))
        assert down.exit_code == 0 and "stopped the local cluster" in down.output, down.output
        assert all(not is_ours(pid, conf_dir) for pid in after.values())
        assert find_ours(conf_dir) == []
        assert read_record(settings) is None
        assert port_is_free("127.0.0.1", settings.rest_port)
        again = runner.invoke(down_app, [], env=cli_env(settings))
        assert again.exit_code == 0 and "nothing to stop" in again.output
    finally:
        LocalBackend(settings).down()


# -------------------------------------------------------------------- pre-flight failures (no boot)


@pytest.mark.live  # needs Java: the preflight checks it before the port
def test_busy_rest_port_is_refused_before_anything_starts(tmp_path: Path) -> None:
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        port = blocker.getsockname()[1]
        settings = make_settings(tmp_path, rest_port=port, backend="local")
        with pytest.raises(ClusterError) as info:
            LocalBackend(settings).up()
    assert f"Port {port}" in info.value.message and "in use" in info.value.message
    assert "--port" in info.value.hint and "FLINKLAB_REST_PORT" in info.value.hint
    assert read_record(settings) is None
    assert find_ours(settings.state_dir / "local" / "conf") == []


@pytest.mark.live  # needs Java: the preflight checks it before the state dir
def test_unwritable_state_dir(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, rest_port=free_port(), backend="local")
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    settings = settings.with_overrides(state_dir=blocker / "state")
    with pytest.raises(ClusterError) as info:
        LocalBackend(settings).up()
    assert "state dir" in info.value.message and "not writable" in info.value.message
    assert "FLINKLAB_STATE_DIR" in info.value.hint


def test_java_missing_or_too_old(tmp_path: Path) -> None:
    with pytest.raises(ClusterError) as info:
        find_java({"PATH": str(tmp_path)})
    assert "Java is not installed" in info.value.message and "JAVA_HOME" in info.value.hint
    with pytest.raises(ClusterError) as info:
        find_java({"JAVA_HOME": str(tmp_path / "nojava")})
    assert "has no bin/java" in info.value.message
    # A Java 8 stand-in: a real executable answering -version the way Java 8 does (no Java 8 on this machine).
    old = tmp_path / "jdk8" / "bin" / "java"
    old.parent.mkdir(parents=True)
    old.write_text('#!/bin/sh\necho \'java version "1.8.0_392"\' >&2\n')
    old.chmod(0o755)
    with pytest.raises(ClusterError) as info:
        find_java({"JAVA_HOME": str(tmp_path / "jdk8")})
    assert "Java 8" in info.value.message and "too old" in info.value.message


@pytest.mark.live  # needs Java
def test_this_machines_java_is_found() -> None:
    java, major = find_java()
    assert major >= 11 and os.access(java, os.X_OK)


# ------------------------------------------------------------- the waits, against a stand-in REST server


class _Overview(http.server.BaseHTTPRequestHandler):
    """Answers GET /overview like a JobManager whose TaskManager never registered."""

    def do_GET(self) -> None:
        body = json.dumps({"taskmanagers": 0, "slots-total": 0, "slots-available": 0,
                           "flink-version": FLINK_VERSION}).encode()
        self.send_response(200 if self.path == "/overview" else 404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def stand_in_rest():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Overview)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield FlinkRest(f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()


def test_a_taskmanager_that_never_registers_times_out_with_its_log(stand_in_rest: FlinkRest, tmp_path: Path) -> None:
    log = tmp_path / "taskmanager-1" / "tm.log"
    log.parent.mkdir()
    log.write_text("starting\nCaused by: java.net.ConnectException: Connection refused\n\tat a.b.C(C.java:1)\n")
    asked = []

    def diagnostics(component: str) -> Diagnostics:
        asked.append(component)
        return Diagnostics(log=str(log), tail=tail_lines(log))

    assert wait_until(stand_in_rest, RestAnswers(), timeout=5, diagnostics=diagnostics) < 5
    start = time.monotonic()
    with pytest.raises(ClusterStartError) as info:
        wait_until(stand_in_rest, RestAnswers() & TaskManagersRegistered(1, 4), timeout=1, poll_interval=0.1,
                   diagnostics=diagnostics)
    assert 1 <= time.monotonic() - start < 5
    message = info.value.message
    assert "Timed out after 1s waiting for 1 TaskManager(s) with 4 slots to register" in message
    assert "0 TaskManager(s), 0 slots (0 free) registered" in message and str(log) in message
    assert asked == ["taskmanager"]
    assert info.value.log_tail == ["starting", "Caused by: java.net.ConnectException: Connection refused"]


def test_waits_stop_early_when_a_process_died(tmp_path: Path) -> None:
    rest = FlinkRest(f"http://127.0.0.1:{free_port()}", timeout=1)  # nothing listens there
    with pytest.raises(ClusterStartError) as info:
        wait_until(rest, RestAnswers(), timeout=60, poll_interval=0.1,
                   diagnostics=lambda component: Diagnostics(log=f"{component}.log"),
                   abort=lambda: ("jobmanager", "The jobmanager process exited (code 1)"))
    assert info.value.message.startswith("The jobmanager process exited (code 1) while waiting for the REST")
    assert "jobmanager.log" in info.value.message


# ---- the SQL gateway that flink-up runs beside the cluster ------------------------------------------------------


@pytest.mark.live
def test_flink_up_repairs_a_dead_gateway_and_status_shows_it(flink_cluster: Settings) -> None:
    from flinklab.environment import gateway

    env = cli_env(flink_cluster)
    status = runner.invoke(app, ["status", "--json"], env=env)
    assert status.exit_code == 0, status.output
    before = json.loads(status.output)["gateway"]
    assert before["healthy"] and before["url"] == flink_cluster.gateway_url
    os.kill(before["pid"], signal.SIGKILL)
    deadline = time.monotonic() + 30
    while gateway.gateway_state(flink_cluster).pid is not None:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    status = runner.invoke(app, ["status"], env=env)
    assert status.exit_code == 1 and "SQL gateway:   not running" in status.output
    assert "the SQL gateway does not answer" in status.output

    cluster_pids = recorded_pids(flink_cluster)
    up = runner.invoke(app, ["up"], env=env)
    assert up.exit_code == 0, up.output
    assert "repaired" in up.output and "the SQL gateway" in up.output
    assert recorded_pids(flink_cluster) == cluster_pids  # the healthy cluster was left alone
    after = gateway.gateway_state(flink_cluster)
    assert after.healthy and after.pid != before["pid"]
    logs = runner.invoke(app, ["logs", "gateway"], env=env)
    assert logs.exit_code == 0 and "serving Flink's SQL Gateway REST API" in logs.output


def test_a_stale_gateway_pid_file_never_signals_another_process(tmp_settings: Settings) -> None:
    from flinklab.environment import gateway

    tmp_settings.state_dir.mkdir(parents=True, exist_ok=True)
    gateway.pid_file(tmp_settings).write_text(f"{os.getpid()}\n")  # a live pid that is not a gateway
    assert gateway.running_pid(tmp_settings) is None
    assert gateway.stop(tmp_settings) is False
    assert not gateway.pid_file(tmp_settings).exists()
