"""Named faults, each survived (issue 11, part 3): what is killed or interrupted, and what must still be true after.

All but the last run on ONE temporary local cluster of this module (its own state dir, free ports), because they
kill its JobManager and its gateway, interrupt its start-up and start it twice at once; the commands run as real
processes (`flink-up`, `flinklab run`, `sql-client.sh`), as a learner's terminal would run them. The tests run in
file order: the Ctrl-C and the two-at-once tests start from a stopped cluster; the later ones use the one the
two-at-once test leaves running. Only the full-disk test may skip (when this machine refuses a tmpfs mount).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.env import free_port, make_settings

from flinklab.cluster.base import ClusterRecord, read_record, record_path, write_record
from flinklab.cluster.local import LocalDetails, find_ours, is_ours
from flinklab.environment import gateway
from flinklab.environment.lifecycle import WAITING_MESSAGE, bring_down, bring_up
from flinklab.flink.rest import FlinkRest
from flinklab.settings import Settings

pytestmark = pytest.mark.live

REPO = Path(__file__).resolve().parent.parent.parent
ENTRY = {
    "flink-up": "from flinklab.cli import flink_up_main as m; m()",
    "flink-down": "from flinklab.cli import flink_down_main as m; m()",
    "flinklab": "from flinklab.cli import main as m; m()",
    "sql-client.sh": "from flinklab.cli import sql_client_main as m; m()",
}
#: An unbounded query: it streams until something stops it.
ENDLESS_DDL = "CREATE TABLE gen (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '20');\n"
ENDLESS_QUERY = "SET 'sql-client.execution.result-mode' = 'tableau';\nSELECT n FROM gen;\n"
PREVIOUS_OUT = "a complete output of an earlier run\n\nShutting down the session...\ndone.\n"


def env_of(settings: Settings) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "PYTHONUNBUFFERED": "1",
        "COLUMNS": "200",
        "HOME": str(settings.state_dir.parent / "home"),
        "FLINKLAB_STATE_DIR": str(settings.state_dir),
        "FLINKLAB_DATA_DIR": str(settings.data_dir),
        "FLINKLAB_WORKSPACE": str(settings.workspace_root),
        "FLINKLAB_REST_PORT": str(settings.rest_port),
        "FLINKLAB_GATEWAY_PORT": str(settings.gateway_port),
        "FLINKLAB_BACKEND": "local",
        "FLINKLAB_SLOTS": str(settings.slots),
        "FLINKLAB_TM_MEMORY": settings.taskmanager_memory,
    }


def command(settings: Settings, name: str, *args: str) -> list[str]:
    return [sys.executable, "-c", ENTRY[name], *args]


def run(settings: Settings, name: str, *args: str, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(command(settings, name, *args), env=env_of(settings), capture_output=True, text=True,
                          timeout=timeout, **kwargs)


def spawn(settings: Settings, name: str, *args: str, **kwargs) -> subprocess.Popen:
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.STDOUT)
    return subprocess.Popen(command(settings, name, *args), env=env_of(settings), text=True, **kwargs)


def assert_one_clear_line(result_stderr: str, *needles: str) -> None:
    """The error is one line naming what it must, and no traceback."""
    assert "Traceback" not in result_stderr, result_stderr
    lines = [line for line in result_stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, result_stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def conf_dir(settings: Settings) -> Path:
    return settings.state_dir / "local" / "conf"


def nothing_left(settings: Settings) -> None:
    """No JobManager/TaskManager/gateway process of this state dir, no record, no gateway pid file."""
    deadline = time.monotonic() + 20
    while (find_ours(conf_dir(settings)) or gateway._strays(settings)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert find_ours(conf_dir(settings)) == []
    assert gateway._strays(settings) == []
    assert not record_path(settings).exists()
    assert not gateway.pid_file(settings).exists()


def gateway_jvms(settings: Settings) -> list[int]:
    """The gateway JVMs of this state dir (PyFlink launches them with FLINK_LOG_DIR=STATE/client-logs)."""
    wanted = f"FLINK_LOG_DIR={settings.state_dir / 'client-logs'}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if wanted in (entry / "environ").read_bytes().split(b"\0") and \
                        b"java" in (entry / "cmdline").read_bytes().split(b"\0")[0]:
                    found.append(int(entry.name))
    return found


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def running_jobs(settings: Settings) -> list[str]:
    record = read_record(settings)
    return [j.job_id for j in FlinkRest(record.rest_url).jobs() if j.state == "RUNNING"] if record else []


def read_until(proc: subprocess.Popen, needle: str, seen: list[str], timeout: float = 180) -> None:
    """Read `proc`'s output lines until one contains `needle` (kept in `seen`)."""
    found = threading.Event()

    def pump() -> None:
        for line in proc.stdout:
            seen.append(line)
            if needle in line:
                found.set()
                return
        found.set()

    threading.Thread(target=pump, daemon=True).start()
    assert found.wait(timeout) and any(needle in line for line in seen), "".join(seen)


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """A cluster of this module's own (state, data, workspace in a temporary dir; free ports), stopped at the end
    whatever the tests left."""
    settings = make_settings(tmp_path_factory.mktemp("faults"), rest_port=free_port(), gateway_port=free_port(),
                             backend="local", slots=2, taskmanager_memory="1024m")
    try:
        yield settings
    finally:
        with contextlib.suppress(Exception):
            bring_down(settings)
        for pid in find_ours(conf_dir(settings)) + gateway._strays(settings):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)


@pytest.fixture
def decoy() -> Iterator[subprocess.Popen]:
    """A real process that is not ours (its pid goes into our pid files and record)."""
    proc = subprocess.Popen(["sleep", "600"])
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


# ------------------------------------------------------------------------------------------ 3. Ctrl-C during up


@pytest.mark.parametrize("moment", ["starting the JobManager", "waiting for the REST"])
def test_ctrl_c_during_flink_up_leaves_nothing_behind(own: Settings, moment: str) -> None:
    """SIGINT to `flink-up` while the JVMs start (Flink's scripts still forking), and while it waits for
    readiness (JVMs running, REST not answering yet): exit 130, and no JVM, no gateway, no record of that state
    dir is left (the next `flink-up` works: see the next test)."""
    up = spawn(own, "flink-up")
    seen: list[str] = []
    try:
        read_until(up, moment, seen)
        if moment.startswith("waiting"):
            wait_for(lambda: find_ours(conf_dir(own)), 60, "a JVM of the cluster")
        else:
            time.sleep(0.3)
        up.send_signal(signal.SIGINT)
        rest = up.communicate(timeout=120)[0]
    finally:
        if up.poll() is None:
            up.kill()
    output = "".join(seen) + rest
    assert up.returncode == 130, output
    assert "interrupted" in output and "Traceback" not in output, output
    nothing_left(own)


# ------------------------------------------------------------------------------------------ 4. two up at once


def test_two_flink_up_at_once_start_one_cluster_and_one_gateway(own: Settings) -> None:
    """Two `flink-up` at the same moment on one state dir: one starts, the other says it waits, then finds it
    running. Never two JobManagers or two gateways."""
    bring_down(own)
    first, second = spawn(own, "flink-up"), spawn(own, "flink-up")
    outputs = [proc.communicate(timeout=400)[0] for proc in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0], outputs
    waited = [out for out in outputs if WAITING_MESSAGE in out]
    assert len(waited) == 1, outputs
    assert "already running" in waited[0], waited[0]
    jvms = find_ours(conf_dir(own))
    assert len(jvms) == 2, jvms  # one JobManager, one TaskManager
    assert len(gateway._strays(own)) == 1
    assert gateway.gateway_state(own).healthy


# ------------------------------------------------------------------------------ 1. JobManager killed during run


def test_jobmanager_killed_during_flinklab_run(own: Settings) -> None:
    """The JobManager dies while `flinklab run` streams a step: one line, exit 2, the learner's SQL and previous
    output unchanged, what was printed kept aside as STEP.out.partial, no report; `flink-up` repairs the cluster
    and the gateway works on it."""
    bring_up(own, data_files=[])  # (already running after the test above: a no-op)
    workspace = own.workspace("windows")
    workspace.mkdir(parents=True, exist_ok=True)
    files = {"ddl.sql": ENDLESS_DDL, "tumble.sql": ENDLESS_QUERY, "tumble.out": PREVIOUS_OUT}
    for name, text in files.items():
        (workspace / name).write_text(text)
    jm_pid = read_record(own).details.jobmanager_pid

    lab = spawn(own, "flinklab", "run", "windows", "--only", "tumble", stdout=subprocess.PIPE,
                stderr=subprocess.PIPE)
    try:
        wait_for(lambda: running_jobs(own), 120, "the step's job to run")
        partial_tmp = workspace / ".tumble.out.tmp"
        wait_for(lambda: partial_tmp.exists() and "| +I |" in partial_tmp.read_text(), 60, "rows in the output")
        os.kill(jm_pid, signal.SIGKILL)
        out, err = lab.communicate(timeout=300)
    finally:
        if lab.poll() is None:
            lab.kill()
    assert lab.returncode == 2, (out, err)
    assert_one_clear_line(err, "No Flink cluster answers at", "the run stopped at step tumble",
                          "tumble.out is unchanged")
    for name, text in files.items():
        assert (workspace / name).read_text() == text, name
    partial = workspace / "tumble.out.partial"
    assert "| +I |" in partial.read_text()
    assert not (workspace / ".tumble.out.tmp").exists() and not (workspace / "report.json").exists()

    up = run(own, "flink-up")
    assert up.returncode == 0, up.stdout + up.stderr
    assert "repaired" in up.stdout and "jobmanager" in up.stdout, up.stdout
    assert is_ours(read_record(own).details.jobmanager_pid, conf_dir(own))
    query = run(own, "sql-client.sh", input="SELECT 40 + 2 AS answer;\n")
    assert query.returncode == 0 and "42" in query.stdout, query.stdout + query.stderr


def test_jobmanager_killed_during_sql_client(own: Settings, tmp_path: Path) -> None:
    """The JobManager dies while a plain `sql-client.sh -f` streams a query: the client's watch ends the call within
    seconds (the gateway alone would retry for minutes): one line, exit 2, no shutdown lines in the output."""
    bring_up(own, data_files=[])  # repaired by the test above
    (tmp_path / "ddl.sql").write_text(ENDLESS_DDL)
    (tmp_path / "q.sql").write_text(ENDLESS_QUERY)
    out = tmp_path / "q.out"
    jm_pid = read_record(own).details.jobmanager_pid
    with out.open("w") as sink:
        client = spawn(own, "sql-client.sh", "-i", str(tmp_path / "ddl.sql"), "-f", str(tmp_path / "q.sql"),
                       stdout=sink, stderr=subprocess.PIPE)
        try:
            wait_for(lambda: "| +I |" in out.read_text(), 120, "rows in the output")
            os.kill(jm_pid, signal.SIGKILL)
            killed = time.monotonic()
            _, err = client.communicate(timeout=120)
            took = time.monotonic() - killed
        finally:
            if client.poll() is None:
                client.kill()
    assert client.returncode == 2, err
    assert_one_clear_line(err, "No Flink cluster answers at", "flink-up")
    assert took < 30, f"the call ended {took:.0f} s after the JobManager died"
    assert "Shutting down the session" not in out.read_text()
    up = run(own, "flink-up")
    assert up.returncode == 0 and "repaired" in up.stdout, up.stdout + up.stderr


# ------------------------------------------------------------------------------------ 2. gateway killed mid-query


def test_gateway_killed_mid_query(own: Settings) -> None:
    """SIGKILL the gateway while `sql-client.sh` streams an unbounded query: the client says so in one line
    (exit 2, the gateway's URL, `flink-up`); `flink-up` restarts the gateway and cancels the orphaned query's job,
    which nothing could ever read again; the new gateway answers."""
    bring_up(own, data_files=[])  # (already running after the tests above: a no-op)
    workspace = own.workspace("faults-gateway")
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / "ddl.sql").write_text(ENDLESS_DDL)
    (workspace / "query.sql").write_text(ENDLESS_QUERY)
    before = gateway.gateway_state(own)
    assert before.healthy
    client = spawn(own, "sql-client.sh", "-i", "ddl.sql", "-f", "query.sql", cwd=workspace,
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        job = wait_for(lambda: running_jobs(own), 120, "the query's job to run")[0]
        seen: list[str] = []
        read_until(client, "| +I |", seen, timeout=120)  # rows are flowing to the client
        jvms = gateway_jvms(own)
        assert len(jvms) == 1, jvms
        os.kill(before.pid, signal.SIGKILL)  # the gateway process, as an OOM kill or a crash would
        out, err = client.communicate(timeout=120)
    finally:
        if client.poll() is None:
            client.kill()
    assert client.returncode == 2, (out[-500:], err)
    assert_one_clear_line(err, own.gateway_url, "flink-up")

    wait_for(lambda: not gateway_jvms(own), 30, "the dead gateway's JVM to exit")  # its stdin closed: it exits
    rest = FlinkRest(read_record(own).rest_url)
    assert rest.job(job)["state"] == "RUNNING"  # the cluster cannot know its reader died...
    up = run(own, "flink-up")
    assert up.returncode == 0, up.stdout + up.stderr
    assert "the SQL gateway" in up.stdout and "cancelled 1 query job(s)" in up.stdout, up.stdout
    wait_for(lambda: rest.job(job)["state"] == "CANCELED", 60, "the orphaned job to be cancelled")  # ...flink-up does
    after = gateway.gateway_state(own)
    assert after.healthy and after.pid != before.pid
    query = run(own, "sql-client.sh", input="SELECT 40 + 2 AS answer;\n")
    assert query.returncode == 0 and "42" in query.stdout, query.stdout + query.stderr


# ------------------------------------------------------------------------------------------ 6. full workspace


@pytest.fixture
def full_workspace(own: Settings, tmp_path: Path) -> Iterator[Path]:
    """A 200 KiB tmpfs as the workspace root (unmounted after)."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", str(mount)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"this machine refuses a tmpfs mount: {done.stderr.strip() or done.returncode}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(directory: Path, leave: int) -> None:
    """Fill the file system of `directory` until about `leave` bytes are free."""
    stat = os.statvfs(directory)
    free = stat.f_bavail * stat.f_frsize
    with contextlib.suppress(OSError), open(directory / "filler", "wb") as handle:
        handle.write(b"\0" * max(0, free - leave))


def test_full_workspace_gives_a_clear_error_and_no_output_looking_complete(
    own: Settings, full_workspace: Path
) -> None:
    """`flinklab run` and `sql-client.sh > out` on a full workspace: one line, exit 2; the previous STEP.out is
    unchanged and no half-written file is left under a name that looks finished."""
    from flinklab.labs.windows import LAB
    from flinklab.usecases.solution import install_solution

    bring_up(own, data_files=[])  # (already running after the tests above: a no-op)
    settings = own.with_overrides(workspace_root=full_workspace)
    install_solution(settings, LAB)
    workspace = settings.workspace("windows")
    (workspace / "tumble.out").write_text(PREVIOUS_OUT)
    fill(full_workspace, leave=4096)

    lab = run(settings, "flinklab", "run", "windows", "--only", "tumble")
    assert lab.returncode == 2, lab.stdout + lab.stderr
    assert_one_clear_line(lab.stderr, "tumble.out", "No space left on device")
    assert (workspace / "tumble.out").read_text() == PREVIOUS_OUT
    assert not (workspace / ".tumble.out.tmp").exists() and not (workspace / "report.json").exists()

    with open(workspace / "shell.out", "w") as redirected:
        shell = subprocess.run(command(settings, "sql-client.sh", "-i", "ddl.sql", "-f", "tumble.sql"),
                               env=env_of(settings), cwd=workspace, stdout=redirected, stderr=subprocess.PIPE,
                               text=True, timeout=300)
    assert shell.returncode == 2, shell.stderr
    assert_one_clear_line(shell.stderr, "No space left on device")
    assert "Shutting down the session" not in (workspace / "shell.out").read_text(errors="replace")


# ------------------------------------------------------------------------- 5. stale pids of other processes


def test_stale_pid_files_and_record_never_kill_another_process(own: Settings, decoy: subprocess.Popen) -> None:
    """After a crash, the record and the gateway's pid file name pids now used by other processes (and other
    processes name our files): `flink-down`, `status` and `flink-up` never signal them."""
    bring_down(own)
    config = conf_dir(own) / "config.yaml"
    tail = subprocess.Popen(["tail", "-f", str(config), str(gateway.log_file(own))], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        def plant() -> None:
            write_record(own, ClusterRecord(
                backend="local", rest_host="127.0.0.1", rest_port=own.rest_port, taskmanagers=1, slots=own.slots,
                flink_version="2.2.1", data_dir=str(own.data_dir), workspace_root=str(own.workspace_root),
                details=LocalDetails(conf_dir=str(conf_dir(own)), log_dir=str(own.state_dir / "local" / "log"),
                                     flink_home="", rpc_port=0, jobmanager_pid=decoy.pid,
                                     taskmanager_pids={"taskmanager-1": tail.pid})))
            gateway.pid_file(own).write_text(f"{decoy.pid}\n")

        plant()
        assert run(own, "flinklab", "status").returncode == 1
        down = run(own, "flink-down")
        assert down.returncode == 0, down.stdout + down.stderr
        assert decoy.poll() is None and tail.poll() is None
        assert not record_path(own).exists()

        # `flink-up` over the stale record: it finds the recorded JobManager "dead", stops what is really ours
        # (nothing), starts afresh; interrupted while its JVMs start, it cleans up by scanning for its own JVMs
        plant()
        up = spawn(own, "flink-up")
        seen: list[str] = []
        read_until(up, "starting the JobManager", seen)
        time.sleep(0.5)
        up.send_signal(signal.SIGINT)
        output = "".join(seen) + up.communicate(timeout=120)[0]
        assert up.returncode == 130 and "restarting the whole cluster" in output, output
        assert decoy.poll() is None and tail.poll() is None
        nothing_left(own)
    finally:
        tail.kill()
        tail.wait()
