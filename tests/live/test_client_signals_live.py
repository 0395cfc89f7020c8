"""SIGTERM and SIGHUP on `sql-client.sh` (and `flinklab sql`) against the live cluster: the query's Flink job is
CANCELED at once (not left RUNNING until the gateway's idle timeout), the client exits with 128 + the signal's
number within a second or two, and prints nothing more (no traceback, no `Query terminated` line: that is Ctrl-C's).

The query reads a filesystem table that is watched for new files ('source.monitor-interval'), so it never ends, as
in `timeout 8 sql-client.sh -i ddl.sql -f tumble_agg.sql` on a lab's unbounded tables. The interactive shell is
signalled on a pseudo-terminal, at a query printed as a tableau, in a full-screen view, and at the prompt.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.env import settings_env
from helpers.shell_term import Term

from flinklab.cluster.base import resolve_rest_url
from flinklab.flink.rest import FlinkRest
from flinklab.flink.waiting import Wait
from flinklab.settings import Settings

pytestmark = pytest.mark.live

ORDERS_CSV = "1,a,2024-01-01 09:00:00\n2,b,2024-01-01 09:05:00\n3,a,2024-01-01 09:07:00\n"
DDL = """\
CREATE TABLE orders (id INT, shop STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 'file://{dir}', 'format' = 'csv', 'source.monitor-interval' = '1s');
"""
QUERY = "SELECT shop, COUNT(*) AS n FROM orders GROUP BY shop;\n"
TABLEAU = "SET 'sql-client.execution.result-mode' = 'tableau';\n"
BIN = Path(sys.executable).parent
#: What the client may take from the signal to its exit: closing the operation and the session, no more.
EXIT_SECONDS = 3.0


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    """ddl.sql (an unbounded table over a watched directory) and query.sql."""
    data = tmp_path / "orders"
    data.mkdir()
    (data / "part-0.csv").write_text(ORDERS_CSV)
    ddl = tmp_path / "ddl.sql"
    ddl.write_text(DDL.format(dir=data))
    query = tmp_path / "query.sql"
    query.write_text(TABLEAU + QUERY)
    return ddl, query


def jobs_by_state(settings: Settings) -> dict[str, str]:
    jobs = FlinkRest(resolve_rest_url(settings)).get("/jobs/overview")["jobs"]
    return {j["jid"]: j["state"] for j in jobs}


def new_running_job(settings: Settings, before: set[str], timeout: float = 120.0) -> str:
    """The one job not in `before` once it is RUNNING (its id)."""
    def running() -> str | None:
        new = [jid for jid, state in jobs_by_state(settings).items() if jid not in before and state == "RUNNING"]
        return new[0] if new else None
    return Wait("the query's job to run", timeout, interval=0.2).until(running)


def ended_state(settings: Settings, job_id: str, timeout: float = 10.0) -> str:
    """The job's state once it ended (CANCELED, FAILED, FINISHED), or its state at the timeout."""
    def ended() -> str | None:
        state = jobs_by_state(settings).get(job_id, "")
        return state if state in ("CANCELED", "FAILED", "FINISHED") else None
    return Wait(f"job {job_id} to end", timeout, interval=0.1).poll(ended) or jobs_by_state(settings)[job_id]


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.mark.parametrize("command", [["sql-client.sh"], ["flinklab", "sql"]], ids=["sql-client.sh", "flinklab-sql"])
@pytest.mark.parametrize("signum, status, group", [
    (signal.SIGTERM, 143, False),
    (signal.SIGHUP, 129, False),
    (signal.SIGTERM, 143, True),  # as `timeout` sends it: to the command, then to its process group
])
def test_a_signal_cancels_the_query_job_and_exits_with_128_plus_its_number(
        flink_cluster: Settings, files: tuple[Path, Path], procs: list[subprocess.Popen[str]], command: list[str],
        signum: int, status: int, group: bool) -> None:
    ddl, query = files
    before = set(jobs_by_state(flink_cluster))
    proc = subprocess.Popen([str(BIN / command[0]), *command[1:], "-i", str(ddl), "-f", str(query)],
                            env=settings_env(flink_cluster), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    procs.append(proc)
    job = new_running_job(flink_cluster, before)
    os.kill(proc.pid, signum)
    if group:
        os.killpg(proc.pid, signum)
    signalled = time.monotonic()
    out, err = proc.communicate(timeout=30)
    seconds = time.monotonic() - signalled
    assert proc.returncode == status, out + err
    assert seconds < EXIT_SECONDS, f"{seconds:.1f}s from the signal to the exit"
    assert ended_state(flink_cluster, job) == "CANCELED"
    assert err == "" and "Traceback" not in out and "Query terminated" not in out
    assert "Shutting down the session" not in out  # cut off: the output must not look complete
    assert out.startswith(f"Successfully initialized from sql script: {ddl}\n")
    assert f"Flink SQL> {QUERY.strip()}" in out


# ---- the interactive shell on a pseudo-terminal -----------------------------------------------------------------


@pytest.fixture
def terms() -> Iterator[list[Term]]:
    started: list[Term] = []
    yield started
    for term in started:
        term.close()


def shell(terms: list[Term], settings: Settings, *args: str) -> Term:
    home = settings.state_dir.parent / "home"  # the default history file goes there, never to the user's home
    home.mkdir(exist_ok=True)
    term = Term(list(args), {**settings_env(settings), "HOME": str(home)})
    terms.append(term)
    return term


@pytest.mark.parametrize("mode, signum, status", [
    ("tableau", signal.SIGTERM, 143), ("changelog", signal.SIGHUP, 129), ("table", signal.SIGTERM, 143),
])
def test_the_shell_cancels_the_query_job_on_a_signal(flink_cluster: Settings, files: tuple[Path, Path],
                                                     terms: list[Term], mode: str, signum: int, status: int) -> None:
    """In tableau mode the query runs in the main thread; in the changelog and table modes in a full-screen view
    (a prompt_toolkit application, told to exit)."""
    ddl, _ = files
    term = shell(terms, flink_cluster, "-i", str(ddl), "-D", f"sql-client.execution.result-mode={mode}")
    term.wait_prompt()
    before = set(jobs_by_state(flink_cluster))
    term.type_line(QUERY.strip())
    job = new_running_job(flink_cluster, before)
    if mode != "tableau":
        term.wait_for("SQL Query Result")
    os.kill(term.child.pid, signum)
    signalled = time.monotonic()
    assert term.exit_status(timeout=30) == status
    assert time.monotonic() - signalled < EXIT_SECONDS
    assert ended_state(flink_cluster, job) == "CANCELED"
    assert b"Traceback" not in term.transcript and b"Query terminated" not in term.transcript


def test_the_shell_at_its_prompt_ends_on_sighup_with_129(flink_cluster: Settings, files: tuple[Path, Path],
                                                         terms: list[Term]) -> None:
    ddl, _ = files
    term = shell(terms, flink_cluster, "-i", str(ddl))
    term.wait_prompt()
    term.send("SELECT 1")  # half a statement in the buffer: it is not run
    term.wait_for("Flink SQL> SELECT 1")
    os.kill(term.child.pid, signal.SIGHUP)
    signalled = time.monotonic()
    assert term.exit_status(timeout=30) == 129
    assert time.monotonic() - signalled < EXIT_SECONDS
    assert b"Traceback" not in term.transcript and b"Shutting down the session" not in term.transcript
