"""The shell's result views without a terminal: the table of result modes, one class per view, the Row Summary's
fields, and flinklab's own keys (toggle table <-> changelog on the same result, pause and resume)."""

from __future__ import annotations

import pytest

from flinklab.sqlclient import tableau
from flinklab.sqlclient.client import RESULT_MODE
from flinklab.sqlclient.shell.result import QueryResult
from flinklab.sqlclient.shell.views import frame, modes
from flinklab.sqlclient.shell.views.changelog import ChangelogResultView
from flinklab.sqlclient.shell.views.screen import switched
from flinklab.sqlclient.shell.views.table import TableResultView


def _result() -> QueryResult:
    """A word count's changelog: `a` counted twice (an update), `b` once."""
    result = QueryResult([tableau.ColumnType("w", "STRING"), tableau.ColumnType("n", "BIGINT")], ["STRING", "BIGINT"],
                         30)
    result.apply([("+I", ["a", "1"]), ("+I", ["b", "1"]), ("-U", ["a", "1"]), ("+U", ["a", "2"])])
    return result


@pytest.mark.parametrize(("value", "view"), [("table", TableResultView), (" Changelog ", ChangelogResultView),
                                             ("TABLEAU", None), ("nonsense", None)])
def test_result_modes_table(value: str, view: type | None) -> None:
    assert modes.view_for({RESULT_MODE: value}) is view


def test_default_result_mode_is_the_table_view() -> None:
    assert modes.view_for({}) is TableResultView


def test_one_result_two_views() -> None:
    result = _result()
    table, changelog = TableResultView(result), ChangelogResultView(result)
    table.refresh()
    changelog.refresh()
    assert table.rows == [("b", "1"), ("a", "2")]  # folded: the update replaced a's row
    assert [row[0] for row in changelog.rows] == ["+I", "+I", "-U", "+U"]
    assert changelog.header() == ["op", "w", "n"] and table.header() == ["w", "n"]


def test_changelog_row_summary_lists_the_fields_not_the_op() -> None:
    view = ChangelogResultView(_result())
    view.refresh()
    view.press("s")  # the first change
    view.press("o")
    text = [line for fragments in view.lines(80, 24) for _, line in fragments]
    assert view.mode == "row"
    assert "w (STRING):" in text and "n (BIGINT):" in text and "a" in text
    assert not any(line.startswith("op") for line in text)
    assert "+I" not in text


def test_toggle_switches_view_on_the_same_result() -> None:
    result = _result()
    view = TableResultView(result)
    view.refresh()
    view.press(" ")  # paused
    view.press("t")
    assert view.switching and not view.leaving
    other = switched(view)
    assert isinstance(other, ChangelogResultView) and other.result is result and other.paused
    assert len(other.rows) == 4
    back = switched(other)
    assert isinstance(back, TableResultView) and back.rows == [("b", "1"), ("a", "2")]


def test_pause_shows_in_the_status_line_and_resume_asks_for_a_refresh() -> None:
    view = TableResultView(_result())
    view.refresh()
    view.press(" ")
    assert view.paused
    status = [line for _, line in view.lines(100, 24)[1]][0]
    assert "Refresh: Paused" in status
    view.press(" ")
    assert not view.paused and view.poke
    assert "Refresh: 1 s" in [line for _, line in view.lines(100, 24)[1]][0]


@pytest.mark.parametrize(("view", "other"), [(TableResultView, "T Changelog"), (ChangelogResultView, "T Table")])
def test_footers_name_the_own_keys_uncut_at_80_columns(view: type, other: str) -> None:
    labels = "".join(text for line in frame.key_lines(80, view.HELP) for _, text in line)
    assert other in labels and "Space Pause" in labels


# ---- completion after an alias or a table name ----------------------------------------------------------------

def test_aliases_of_from_and_join() -> None:
    from flinklab.sqlclient.shell.completer import aliases

    got = aliases("SELECT * FROM orders t JOIN users AS u ON t.user_id = u.user_id, shipments s WHERE t.amo")
    assert got == {"t": "orders", "u": "users", "s": "shipments"}
    assert aliases("SELECT a, b FROM orders WHERE x") == {}


def test_alias_is_resolved_to_its_table_when_asking() -> None:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from flinklab.gateway.completion import CatalogSnapshot, candidates
    from flinklab.sqlclient.shell.completer import GatewayCompleter

    snapshot = CatalogSnapshot(tables={"orders": ["id", "amount", "ts"], "small": ["k", "v"]})
    asked: list[str] = []

    def ask(statement: str, position: int) -> list[str]:  # the gateway's own candidate function
        asked.append(statement[:position])
        return candidates(statement, position, snapshot)

    completer = GatewayCompleter(ask)
    event = CompleteEvent(completion_requested=True)
    text = "SELECT * FROM orders t WHERE t.amo"
    got = [(c.text, c.start_position) for c in completer.get_completions(Document(text), event)]
    assert got == [("t.amount", -len("t.amo"))]
    assert asked == ["SELECT * FROM orders t WHERE orders.amo"]
    text = "SELECT * FROM small WHERE small."
    got = [c.text for c in completer.get_completions(Document(text), event)]
    assert got == ["small.k", "small.v"]


def test_a_plain_hint_after_a_dot_completes_the_part_after_it() -> None:
    from flinklab.sqlclient.shell.completer import completions

    assert completions("SELECT t.amo", ["amount", "AMOUNT_X", "id"]) == [("t.amount", -5, ""), ("t.AMOUNT_X", -5, "")]


# ---- what the continuation prompt shows open -----------------------------------------------------------------

@pytest.mark.parametrize(("text", "states"), [
    ("SELECT 1", [""]),
    ("SELECT 'abc\ndef' AS s,\n(1 + (2\n", ["", "'", "", "(("]),
    ("SELECT /* a\ncomment */ 1 -- it's\n, `odd\nname`", ["", "/*", "", "`"]),
    ("SELECT /*+ OPTIONS(\n'a'='b') */ 'it''s\n'", ["", "/*+", "'"]),
    ("INSERT INTO t VALUES (')',\n')')", ["", "("]),
])
def test_open_at_lines(text: str, states: list[str]) -> None:
    from flinklab.sqlclient.shell.keys import open_at_lines

    assert open_at_lines(text) == states


def test_a_refresh_marks_what_changed_in_bold_as_flink() -> None:
    result = _result()
    view = TableResultView(result)
    view.refresh()
    before = list(view.rows)  # [("b", "1"), ("a", "2")]
    result.apply([("-U", ["b", "1"]), ("+U", ["b", "2"])])  # b's row leaves its place, comes back at the end
    view.refresh()
    for index, row in enumerate(view.rows):
        styles = [style for style, text in view.lines(80, 24)[4 + index] if text.strip()]
        assert styles == ["bold" if cell != before[index][column] else "" for column, cell in enumerate(row)]
    view.press("s")  # a selected row is reversed, never bold
    assert {style for style, text in view.lines(80, 24)[4] if text.strip()} == {"reverse"}
