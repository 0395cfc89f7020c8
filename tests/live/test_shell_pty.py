"""The interactive shell on a real pseudo-terminal against the live cluster: prompt, statements, HELP, completion,
Ctrl-C, the table and changelog views, history, exit codes, and the bad inputs of issue 19.

Each test drives a shell through tests/helpers/shell_term.Term (pexpect + pyte) and waits on what the screen shows.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from helpers.env import free_port, settings_env
from helpers.shell_term import Term

from flinklab.access import write_token
from flinklab.cluster.base import resolve_rest_url
from flinklab.flink.rest import FlinkRest
from flinklab.settings import Settings
from flinklab.sqlclient.shell.history import MASK

pytestmark = pytest.mark.live

DDL = """
CREATE TABLE orders (id INT, amount DOUBLE, ts TIMESTAMP(3))
  WITH ('connector' = 'datagen', 'rows-per-second' = '5');
CREATE TABLE small (k STRING, v INT)
  WITH ('connector' = 'datagen', 'number-of-rows' = '30', 'fields.k.length' = '1');
"""
TABLEAU = ["-D", "sql-client.execution.result-mode=tableau"]


@pytest.fixture
def ddl(tmp_path: Path) -> Path:
    path = tmp_path / "ddl.sql"
    path.write_text(DDL)
    return path


@pytest.fixture
def shells(flink_cluster: Settings) -> Iterator[list[Term]]:
    """Shells a test started: killed at its end if still running."""
    started: list[Term] = []
    yield started
    for term in started:
        term.close()


def start(shells: list[Term], settings: Settings, *args: str, rows: int = 40, cols: int = 120,
          env: dict[str, str] | None = None) -> Term:
    home = settings.state_dir.parent / "home"  # the default history file goes there, never to the user's home
    home.mkdir(exist_ok=True)
    term = Term(list(args), {**(env or settings_env(settings)), "HOME": str(home)}, rows=rows, cols=cols)
    shells.append(term)
    return term


def running_jobs(settings: Settings) -> list[str]:
    jobs = FlinkRest(resolve_rest_url(settings)).get("/jobs/overview")["jobs"]
    return [j["jid"] for j in jobs if j["state"] not in ("FINISHED", "CANCELED", "FAILED")]


def wait_no_running_jobs(settings: Settings, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while running_jobs(settings):
        assert time.monotonic() < deadline, f"jobs still running: {running_jobs(settings)}"
        time.sleep(0.2)  # polling the cluster's REST API, not waiting for the shell


def cancelled_jobs(settings: Settings) -> int:
    jobs = FlinkRest(resolve_rest_url(settings)).get("/jobs/overview")["jobs"]
    return sum(1 for j in jobs if j["state"] == "CANCELED")


# ---- the prompt -----------------------------------------------------------------------------------------------


def test_welcome_help_two_lines_and_quit(shells: list[Term], flink_cluster: Settings, ddl: Path,
                                         tmp_path: Path) -> None:
    hist = tmp_path / "hist"
    term = start(shells, flink_cluster, "-i", str(ddl), "-hist", str(hist), *TABLEAU)
    term.wait_for(f"Command history file path: {hist}")
    assert "Enter 'HELP;' for the commands, 'QUIT;' to leave." in term.text()
    assert f"SQL gateway:   {flink_cluster.gateway_url}" in term.text()
    term.wait_prompt()
    term.type_line("HELP;")
    term.wait_for("Prints the available commands.")
    term.wait_prompt()
    term.clear()
    term.type_line("SELECT 40 +")
    term.wait(lambda: term.lines()[1] == ">", "the continuation prompt")
    term.type_line("  2 AS answer;")
    term.wait_for("Received a total of 1 row")
    assert "|      answer |" in term.text() and "| +I |          42 |" in term.text()
    term.wait_prompt()
    term.type_line("QUIT;")
    term.wait_for("[INFO] Exiting Flink SQL CLI Client...")
    assert term.exit_status() == 0
    assert "SELECT 40 +\n+  2 AS answer;" in hist.read_text()


def test_tab_completes_a_table_from_init_and_ctrl_c_discards(shells: list[Term], flink_cluster: Settings,
                                                             ddl: Path) -> None:
    term = start(shells, flink_cluster, "-i", str(ddl))
    term.wait_prompt()
    term.send("SELECT * FROM sma\t")
    term.wait_for("Flink SQL> SELECT * FROM small")
    term.send("\x03")  # Ctrl-C on the prompt: the buffer is dropped
    term.wait_prompt()
    term.send("\x04")  # Ctrl-D on an empty line: leave with Flink's shutdown lines only (no quit line)
    term.wait_for("Shutting down the session...")
    assert term.exit_status() == 0
    assert b"Exiting Flink SQL CLI Client" not in term.transcript


def test_ctrl_c_cancels_an_unbounded_query_and_its_job(shells: list[Term], flink_cluster: Settings,
                                                       ddl: Path) -> None:
    wait_no_running_jobs(flink_cluster)
    before = cancelled_jobs(flink_cluster)
    term = start(shells, flink_cluster, "-i", str(ddl), *TABLEAU)
    term.wait_prompt()
    term.type_line("SELECT id FROM orders;")
    term.wait_for("| +I |")
    term.send("\x03")
    term.wait_for("Query terminated, received a total of")
    term.wait_prompt()
    wait_no_running_jobs(flink_cluster)
    assert cancelled_jobs(flink_cluster) == before + 1
    term.type_line("SHOW TABLES;")  # still usable
    term.wait_for("small |")


# ---- the views ------------------------------------------------------------------------------------------------


def test_table_view_pages_and_row_summary(shells: list[Term], flink_cluster: Settings, ddl: Path) -> None:
    term = start(shells, flink_cluster, "-i", str(ddl), rows=12, cols=100)  # 6 rows a page: 30 rows are 5 pages
    term.wait_prompt()
    term.type_line("SELECT * FROM small;")
    term.wait_for("SQL Query Result (Table)")
    term.wait_for("Table program finished.")
    term.wait_for("Page: Last of 5")
    lines = term.lines()
    assert lines[0].strip() == "SQL Query Result (Table)" and "Updated: " in lines[1]
    assert lines[3].split() == ["k", "v"]
    assert "Q Quit" in lines[-2] and "O Open Row" in lines[-1]
    for key, status in [("p", "Page: 4 of 5"), ("p", "Page: 3 of 5"), ("n", "Page: 4 of 5"),
                        ("l", "Page: Last of 5")]:
        term.send(key)
        term.wait_for(status)
    term.send("g")
    term.wait_for("Enter page number: [1 to 5]")
    term.send("9\r")
    term.wait_for("The input is invalid please check it again.")
    term.send("2\r")
    term.wait_for("Page: 2 of 5")
    term.send("s")  # select the first row of the page
    term.send("o")
    term.wait_for("Row Summary")
    assert "k (STRING):" in term.text() and "v (INT):" in term.text()
    term.send("q")
    term.wait_for("Page: 2 of 5")
    term.send("q")
    term.wait_for("[INFO] Result retrieval cancelled.")  # Flink's Printer says it on leaving, finished or not
    term.wait_prompt()


def test_changelog_view_leaving_a_running_query_cancels_it(shells: list[Term], flink_cluster: Settings,
                                                           ddl: Path) -> None:
    wait_no_running_jobs(flink_cluster)
    before = cancelled_jobs(flink_cluster)
    term = start(shells, flink_cluster, "-i", str(ddl), "-D", "sql-client.execution.result-mode=changelog")
    term.wait_prompt()
    term.type_line("SELECT id, amount FROM orders;")
    term.wait_for("SQL Query Result (Changelog)")
    term.wait(lambda: any(line.lstrip().startswith("+I ") for line in term.lines()), "a +I row")
    lines = term.lines()
    assert lines[3].split() == ["op", "id", "amount"] and "Refresh: Fastest" in lines[1]
    assert "Page:" not in lines[1] and "G Goto Page" not in term.text()
    term.send("+")
    term.wait_for("Refresh: 100 ms")
    term.send("q")
    term.wait_for("[INFO] Result retrieval cancelled.")
    term.wait_prompt()
    wait_no_running_jobs(flink_cluster)
    assert cancelled_jobs(flink_cluster) == before + 1


def test_table_view_of_an_aggregate_folds_updates(shells: list[Term], flink_cluster: Settings, ddl: Path) -> None:
    term = start(shells, flink_cluster, "-i", str(ddl))
    term.wait_prompt()
    term.type_line("SELECT COUNT(*) AS n FROM small;")
    term.wait_for("Table program finished.")
    rows = [line.split() for line in term.lines()[4:-2] if line.strip()]
    assert rows == [["30"]]  # one row: every update folded into it, not the changelog
    term.send("\x1b")  # Esc leaves too
    term.wait_prompt()


def test_resize_redraws_and_a_tiny_terminal_says_so(shells: list[Term], flink_cluster: Settings,
                                                    ddl: Path) -> None:
    term = start(shells, flink_cluster, "-i", str(ddl), rows=20, cols=20)
    term.wait_prompt()
    term.type_line("SELECT * FROM small;")
    term.wait_for("Terminal too")
    assert all(len(line) <= 20 for line in term.lines())
    term.resize(24, 100)
    term.wait_for("SQL Query Result (Table)")
    term.resize(5, 20)
    term.wait_for("Terminal too")
    term.send("q")
    term.wait_prompt()
    term.type_line("HELP;")  # a 20x5 prompt still works
    term.wait_for("details.")


# ---- history ----------------------------------------------------------------------------------------------------


def test_history_masks_secrets(shells: list[Term], flink_cluster: Settings, tmp_path: Path) -> None:
    hist = tmp_path / "hist"
    term = start(shells, flink_cluster, "-hist", str(hist))
    term.wait_prompt()
    term.type_line("SET 'db.password' = 'hunter2';")
    term.wait_for("[INFO] Execute statement succeeded.")
    term.wait_prompt()
    term.type_line("EXIT;")
    assert term.exit_status() == 0
    text = hist.read_text()
    assert "'db.password'" in text and MASK in text and "hunter2" not in text and "EXIT;" in text


def test_unwritable_and_corrupt_history(shells: list[Term], flink_cluster: Settings, tmp_path: Path) -> None:
    term = start(shells, flink_cluster, "-hist", str(tmp_path))  # a directory
    term.wait_for("[WARNING] Cannot write the history file")
    term.wait_prompt()
    term.type_line("HELP;")
    term.wait_for("Prints the available commands.")
    corrupt = tmp_path / "corrupt"
    corrupt.write_bytes(bytes(random.Random(7).randrange(256) for _ in range(4096)) + b"\n+SELECT 1;\n")
    term = start(shells, flink_cluster, "-hist", str(corrupt))
    term.wait_prompt()
    term.send("\x1b[A")  # Up: the last history entry
    term.wait_for("Flink SQL> SELECT 1;")
    term.send("\x03")
    term.wait_prompt()
    term.type_line("QUIT;")
    assert term.exit_status() == 0


# ---- bad input ------------------------------------------------------------------------------------------------


def test_one_megabyte_pasted_at_once(shells: list[Term], flink_cluster: Settings, tmp_path: Path) -> None:
    term = start(shells, flink_cluster, "-hist", str(tmp_path / "h"), *TABLEAU)
    term.wait_prompt()
    big = "x" * 1_000_000
    term.send("\x1b[200~SELECT CHAR_LENGTH('" + big + "') AS n;\x1b[201~")  # a bracketed paste, as terminals send
    term.send("\r")
    term.wait_for("Received a total of 1 row", timeout=120)
    assert "1000000 |" in term.text()
    term.wait_prompt()


def test_binary_garbage_is_an_error_line(shells: list[Term], flink_cluster: Settings, tmp_path: Path) -> None:
    term = start(shells, flink_cluster, "-hist", str(tmp_path / "h"))
    term.wait_prompt()
    rng = random.Random(19)
    garbage = bytes(rng.choice([*range(0x21, 0x7f), *range(0x80, 0x100)]) for _ in range(2000)).replace(b";", b"")
    term.send(garbage + b";\r")
    term.wait_for("[ERROR] Could not execute SQL statement. Reason:")
    term.wait_prompt()
    term.type_line("SET 'after.garbage' = 'ok';")
    term.wait_for("[INFO] Execute statement succeeded.")


def test_unterminated_quote_then_ctrl_d(shells: list[Term], flink_cluster: Settings) -> None:
    term = start(shells, flink_cluster)
    term.wait_prompt()
    term.type_line("SELECT 'abc;")
    term.send("\x04")
    term.wait_for("The statement is not finished")
    term.send("\x03")
    term.wait_prompt()
    term.type_line("QUIT;")
    assert term.exit_status() == 0


def test_lang_c(shells: list[Term], flink_cluster: Settings) -> None:
    env = {**settings_env(flink_cluster), "LANG": "C", "LC_ALL": "C"}
    term = start(shells, flink_cluster, *TABLEAU, env=env)
    term.wait_prompt()
    term.type_line("SELECT 'caf\u00e9' AS w;")
    term.wait_for("Received a total of 1 row")
    term.type_line("QUIT;")
    assert term.exit_status() == 0
    assert b"Traceback" not in term.transcript


# a missing -i file: tests/live/test_shell_init_pty.py


# ---- a gateway of the test's own, to kill -------------------------------------------------------------------


class OwnGateway:
    """A gateway process of a test's own on the session's cluster: killed (SIGKILL) and restarted on its port."""

    def __init__(self, settings: Settings, state_dir: Path):
        self.settings = settings
        self.state_dir = state_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.endpoint = f"127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> OwnGateway:
        write_token(self.state_dir)  # as flink-up does before it starts a gateway (a new one each start)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "flinklab.environment.serve_gateway", "--port", str(self.port), "--rest-url",
             resolve_rest_url(self.settings), "--state-dir", str(self.state_dir)],
            env=settings_env(self.settings), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.get(self.url + "/v3/info", timeout=1.0)
                return self
            except httpx.TransportError:
                assert self.proc.poll() is None and time.monotonic() < deadline, "the test's gateway did not start"
                time.sleep(0.2)  # polling a starting process, not the shell

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()


@pytest.fixture
def own_gateway(flink_cluster: Settings, tmp_path: Path) -> Iterator[OwnGateway]:
    gateway = OwnGateway(flink_cluster, tmp_path / "gw").start()
    try:
        yield gateway
    finally:
        gateway.kill()
        # a killed gateway's query jobs run on (only `flink-up` repairing a gateway cancels such orphans)
        for job in running_jobs(flink_cluster):
            httpx.patch(f"{resolve_rest_url(flink_cluster)}/jobs/{job}?mode=cancel", timeout=10.0)
        wait_no_running_jobs(flink_cluster)


def test_gateway_killed_while_the_prompt_waits(shells: list[Term], flink_cluster: Settings,
                                               own_gateway: OwnGateway) -> None:
    term = start(shells, flink_cluster, "gateway", "-e", own_gateway.endpoint)
    term.wait_prompt()
    own_gateway.kill()
    term.wait_for("stopped answering", timeout=30)
    assert term.exit_status() == 2
    assert b"Traceback" not in term.transcript


def test_gateway_killed_while_a_view_is_open(shells: list[Term], flink_cluster: Settings,
                                             own_gateway: OwnGateway, ddl: Path) -> None:
    term = start(shells, flink_cluster, "gateway", "-e", own_gateway.endpoint, "-i", str(ddl))
    term.wait_prompt()
    term.type_line("SELECT id FROM orders;")
    term.wait_for("SQL Query Result (Table)")
    own_gateway.kill()
    term.wait_for("stopped answering", timeout=30)
    assert term.exit_status() == 2
    assert b"Traceback" not in term.transcript


def test_a_restarted_gateway_gets_a_new_session_with_the_init_files(
        shells: list[Term], flink_cluster: Settings, own_gateway: OwnGateway, ddl: Path) -> None:
    env = {**settings_env(flink_cluster), "FLINKLAB_SHELL_HEARTBEAT_SECONDS": "3600"}  # no beat during the restart
    term = start(shells, flink_cluster, "gateway", "-e", own_gateway.endpoint, "-i", str(ddl), *TABLEAU, env=env)
    term.wait_prompt()
    own_gateway.kill()
    own_gateway.start()
    term.type_line("SHOW TABLES;")
    term.wait_for("no longer knows this shell's session")
    term.wait_for("orders |")  # the -i files ran again on the new session
    term.wait_for("2 rows in set")
