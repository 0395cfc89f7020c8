"""The shell's start on a real pseudo-terminal (issue 31, issue 32 item 2): after `-i` it prints Flink's
`Successfully initialized from sql script:` line (through the file runner's Printer) before the welcome; a missing
`-i` file is one line and the shell opens anyway (a non-interactive `-f` run still fails on it); with
`sql-client.verbose` an error is the client-side exception chain the file runner prints, no invented frames.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.env import settings_env
from helpers.shell_term import SHELL, Term

from flinklab.settings import Settings
from flinklab.sqlclient.protocol import REST_CLIENT_EXCEPTION

pytestmark = pytest.mark.live

TABLEAU = ["-D", "sql-client.execution.result-mode=tableau"]


@pytest.fixture
def shells(flink_cluster: Settings) -> Iterator[list[Term]]:
    started: list[Term] = []
    yield started
    for term in started:
        term.close()


def start(shells: list[Term], settings: Settings, *args: str) -> Term:
    home = settings.state_dir.parent / "home"  # the default history file goes there, never the user's home
    home.mkdir(exist_ok=True)
    term = Term(list(args), {**settings_env(settings), "HOME": str(home)})
    shells.append(term)
    return term


def test_init_file_line_before_the_welcome(shells: list[Term], flink_cluster: Settings, tmp_path: Path) -> None:
    ddl = tmp_path / "ddl.sql"
    ddl.write_text("CREATE TABLE t_init (k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\n")
    term = start(shells, flink_cluster, "-i", str(ddl), *TABLEAU)
    term.wait_prompt()
    lines = [line for line in term.lines() if line]
    line = f"Successfully initialized from sql script: {ddl}"
    assert line in lines, term.text()
    welcome = next(i for i, text in enumerate(lines) if text.startswith("flinklab's Flink SQL shell"))
    assert lines.index(line) < welcome  # SqlClient.openCli: the -i files run before the interactive mode
    term.type_line("SHOW TABLES;")
    term.wait_for("t_init |")  # the init file ran on the shell's session
    term.wait_prompt()
    term.type_line("QUIT;")
    assert term.exit_status() == 0


def test_missing_init_file_opens_the_shell_with_one_line(shells: list[Term], flink_cluster: Settings,
                                                        tmp_path: Path) -> None:
    missing = tmp_path / "ddl.sql"
    term = start(shells, flink_cluster, "-i", str(missing), *TABLEAU)
    term.wait_prompt()
    said = [line for line in term.transcript.decode().splitlines() if str(missing) in line]
    assert len(said) == 1 and said[0].startswith("[WARNING] SQL file") and "does not exist" in said[0], said
    assert "Successfully initialized" not in term.text()
    term.type_line("SELECT 6 * 7 AS answer;")
    term.wait_for("Received a total of 1 row")
    assert "42 |" in term.text()
    term.type_line("QUIT;")
    assert term.exit_status() == 0
    assert b"Traceback" not in term.transcript


def test_missing_init_file_still_fails_a_file_run(flink_cluster: Settings, tmp_path: Path) -> None:
    step = tmp_path / "step.sql"
    step.write_text("SELECT 1;\n")
    run = subprocess.run([*SHELL, "-i", str(tmp_path / "ddl.sql"), "-f", str(step)], env=settings_env(flink_cluster),
                         capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert run.returncode == 2
    text = (run.stdout + run.stderr).strip()
    assert "ddl.sql does not exist" in text and len(text.splitlines()) == 1 and "Traceback" not in text


def test_verbose_error_is_the_client_side_chain(shells: list[Term], flink_cluster: Settings) -> None:
    term = start(shells, flink_cluster, "-D", "sql-client.verbose=true", *TABLEAU)
    term.wait_prompt()
    term.type_line("SELECT * FROM no_such_table;")
    # the trace is longer than the screen: read what the shell wrote, not what is left on the screen
    term.wait(lambda: b"End of exception on server side>]" in term.transcript, "the whole error")
    term.wait_prompt()
    text = term.transcript.decode(errors="replace")
    assert "[ERROR] Could not execute SQL statement. Reason:" in text
    assert f"{REST_CLIENT_EXCEPTION}: [" in text  # the exception Flink's client holds, its message the errors list
    assert "Object 'no_such_table' not found" in text
    assert "at flinklab.gateway" not in text  # no frames that no Java program printed
    term.type_line("QUIT;")
    assert term.exit_status() == 0
