"""The shell's keys and views of issue 31 (items 4 and 5) on a real pseudo-terminal against the live cluster:
Ctrl-R then Enter or Esc, completion after an alias and after `table.`, Enter on an empty prompt, Ctrl-D, the
changelog view's Row Summary, leaving a finished query's view; and flinklab's own: T toggles table <-> changelog
on the same result, Space pauses the refresh, the continuation prompt shows what is open, `\\validate` and Alt-V.

Each test drives `sql-client.sh` through the pexpect + pyte terminal of tests/helpers/shell_term.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers.env import settings_env
from helpers.shell_term import Term

from flinklab.cluster.base import resolve_rest_url
from flinklab.flink.rest import FlinkRest
from flinklab.settings import Settings

pytestmark = pytest.mark.live

DDL = """
CREATE TABLE orders (id INT, amount DOUBLE, ts TIMESTAMP(3))
  WITH ('connector' = 'datagen', 'rows-per-second' = '5');
CREATE TABLE small (k STRING, v INT)
  WITH ('connector' = 'datagen', 'number-of-rows' = '30', 'fields.k.length' = '1');
"""
TABLEAU = ["-D", "sql-client.execution.result-mode=tableau"]
CHANGELOG = ["-D", "sql-client.execution.result-mode=changelog"]


@pytest.fixture
def shell(flink_cluster: Settings, tmp_path: Path) -> Iterator[Callable]:
    """Start a shell on the session's cluster with the DDL as its `-i` file; killed at the test's end."""
    ddl = tmp_path / "ddl.sql"
    ddl.write_text(DDL)
    home = tmp_path / "home"
    home.mkdir()
    started: list[Term] = []

    def start(*args: str, rows: int = 30, cols: int = 120) -> Term:
        term = Term(["-i", str(ddl), "-hist", str(tmp_path / "hist"), *args],
                    {**settings_env(flink_cluster), "HOME": str(home)}, rows=rows, cols=cols)
        started.append(term)
        term.wait_prompt()
        return term

    yield start
    for term in started:
        term.close()


def jobs(settings: Settings) -> int:
    return len(FlinkRest(resolve_rest_url(settings)).get("/jobs/overview")["jobs"])


def cursor_line(term: Term) -> str:
    return term.lines()[term.screen.cursor.y]


# ---- Flink's keys and texts (item 4) ---------------------------------------------------------------------------


def test_ctrl_r_enter_runs_the_found_statement_and_esc_leaves_the_search(shell) -> None:  # type: ignore[no-untyped-def]
    term = shell(*TABLEAU)
    term.type_line("SET 'probe.key' = 'one';")
    term.wait_for("[INFO] Execute statement succeeded.")
    term.wait_prompt()
    term.clear()
    term.send("\x12")  # Ctrl-R
    term.send("probe")
    term.wait_for("I-search backward: probe")
    term.send("\r")  # Enter: the match is taken, and run (it ends with ';')
    term.wait_for("[INFO] Execute statement succeeded.")
    term.wait_prompt()
    assert "I-search" not in term.text()
    term.clear()
    term.send("\x12")
    term.send("probe")
    term.wait_for("I-search backward: probe")
    term.send("\x1b")  # Esc: out of the search, the match in the buffer, nothing run
    term.wait_gone("I-search")
    term.wait(lambda: cursor_line(term) == "Flink SQL> SET 'probe.key' = 'one';", "the match at the prompt")
    assert "Execute statement succeeded" not in term.text()
    term.type_line("")  # Enter runs it from the buffer: the shell is not frozen in the search
    term.wait_for("[INFO] Execute statement succeeded.")


def test_completion_after_an_alias_and_after_a_table_name(shell) -> None:  # type: ignore[no-untyped-def]
    term = shell()
    term.send("SELECT * FROM orders t WHERE t.amo\t")
    term.wait_for("Flink SQL> SELECT * FROM orders t WHERE t.amount")
    term.send("\x03")
    term.wait_prompt()
    term.send("SELECT * FROM small WHERE small.k = 'a' AND orders.amo\t")  # a table name, not in FROM
    term.wait_for("AND orders.amount")


def test_enter_on_an_empty_prompt_continues_and_ctrl_d_prints_only_the_shutdown(shell) -> None:  # type: ignore[no-untyped-def]
    term = shell()
    term.send("\r")
    term.wait(lambda: cursor_line(term) == ">", "a continuation line")
    term.type_line("SELECT 1;")
    term.wait_for("SQL Query Result (Table)")
    term.send("q")
    term.wait_prompt()
    term.send("\x04")
    term.wait_for("Shutting down the session...")
    assert term.exit_status() == 0
    text = term.transcript.decode()
    assert "Exiting Flink SQL CLI Client" not in text and "done." in text


def test_changelog_row_summary_has_no_op_and_leaving_a_finished_view_says_so(shell) -> None:  # type: ignore[no-untyped-def]
    term = shell(*CHANGELOG)
    term.type_line("SELECT k, v FROM small;")
    term.wait_for("SQL Query Result (Changelog)")
    term.wait_for("Table program finished.")
    term.send("s")
    term.send("o")
    term.wait_for("Row Summary")
    text = term.text()
    assert "k (STRING):" in text and "v (INT):" in text
    assert "op (" not in text and "+I" not in text  # the op is not a field (Flink's getRow)
    term.send("q")
    term.wait_for("SQL Query Result (Changelog)")
    term.send("q")
    term.wait_for("[INFO] Result retrieval cancelled.")  # as Flink's Printer, the query finished or not


# ---- beyond Flink's client (item 5) -----------------------------------------------------------------------------


def test_t_toggles_table_and_changelog_on_the_same_result(shell, flink_cluster: Settings) -> None:  # type: ignore[no-untyped-def]
    term = shell(rows=40)  # every key on one page
    term.type_line("SELECT k, COUNT(*) AS n FROM small GROUP BY k;")
    term.wait_for("Table program finished.")
    ran = jobs(flink_cluster)
    table_rows = [line.split() for line in term.lines()[4:-2] if line.strip()]
    assert sum(int(n) for _, n in table_rows) == 30  # folded: one row per key, the counts add up to the rows
    term.send("t")
    term.wait_for("SQL Query Result (Changelog)")
    term.wait(lambda: any(line.lstrip().startswith("+U ") for line in term.lines()), "an update in the changelog")
    assert term.lines()[3].split() == ["op", "k", "n"]
    term.send("t")
    term.wait_for("SQL Query Result (Table)")
    term.wait(lambda: [line.split() for line in term.lines()[4:-2] if line.strip()] == table_rows, "the same table")
    assert jobs(flink_cluster) == ran  # nothing was run again
    term.send("q")
    term.wait_prompt()


def test_space_pauses_and_resumes_the_refresh(shell) -> None:  # type: ignore[no-untyped-def]
    term = shell(*CHANGELOG)
    term.type_line("SELECT id FROM orders;")
    term.wait(lambda: any(line.lstrip().startswith("+I ") for line in term.lines()), "a +I row")
    term.send(" ")
    term.wait_for("Refresh: Paused")
    term.settle()  # returns only once the shell wrote nothing for a while: no refresh while paused
    frozen = term.text()
    term.settle()
    assert term.text() == frozen
    term.send(" ")
    term.wait_for("Refresh: Fastest")
    term.wait(lambda: term.lines()[1] != frozen.splitlines()[1], "the refresh to go on")
    term.send("q")
    term.wait_for("[INFO] Result retrieval cancelled.")


def test_continuation_prompt_shows_what_is_open(shell) -> None:  # type: ignore[no-untyped-def]
    term = shell()
    term.type_line("SELECT 'it''s")
    term.wait(lambda: cursor_line(term) == "'>", "the open quote")
    term.type_line("', (1 + /* a")
    term.wait(lambda: cursor_line(term) == "(/*>", "the open parenthesis and comment")
    term.type_line("comment */ 2")
    term.wait(lambda: cursor_line(term) == "(>", "the parenthesis still open")
    term.type_line(") AS x;")
    term.wait_for("SQL Query Result (Table)")


def test_validate_says_what_a_statement_would_do_without_running_it(shell, flink_cluster: Settings) -> None:  # type: ignore[no-untyped-def]
    term = shell()
    before = jobs(flink_cluster)
    term.type_line("\\validate SELECT k, COUNT(*) AS n FROM small GROUP BY k;")
    term.wait_for("State:")
    text = term.text()
    assert "Bounded:  yes: it ends" in text and "small (datagen): bounded" in text
    assert "Changes:  updating" in text and "GroupAggregate: one accumulator per group key" in text
    term.wait_prompt()
    term.clear()
    term.send("SELECT id FROM orders WHERE amount > 0.5;")
    term.send("\x1bv")  # Alt-V on the buffer
    term.wait_for("Changes:")
    text = term.text()
    assert "no: it runs until cancelled" in text and "insert-only (+I)" in text and "State:    none" in text
    term.wait_prompt()
    term.type_line("\\validate SELECT nope FROM small;")
    term.wait_for("[ERROR] Could not execute SQL statement. Reason:")
    assert "nope" in term.text()
    assert jobs(flink_cluster) == before  # nothing ran
