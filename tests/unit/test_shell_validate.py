"""`\\validate` without a cluster: the verdict read from the planner's real answers (EXPLAIN CHANGELOG_MODE and
SHOW CREATE TABLE texts captured from a live gateway by scripts/shell_explain_goldens.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from flinklab.sqlclient.shell.validate import (
    explain_statement,
    physical_plan,
    render,
    requested,
    scanned_tables,
    source_bounded,
    verdict,
    with_options,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "shell"
ORDERS = "`default_catalog`.`default_database`.`orders`"
SMALL = "`default_catalog`.`default_database`.`small`"


def _explain(name: str) -> str:
    return (DATA / f"explain_{name}.txt").read_text()


def _sources(explain: str) -> dict[str, dict[str, str]]:
    tables = scanned_tables(physical_plan(explain))
    return {t: with_options((DATA / f"create_{t.rsplit('.', 1)[-1].strip('`')}.txt").read_text()) for t in tables}


def test_requested() -> None:
    assert requested("\\validate SELECT 1") == "SELECT 1"
    assert requested("  \\VALIDATE\nSELECT 1") == "SELECT 1"
    assert requested("SELECT '\\validate'") is None


def test_explain_statement_of_a_statement_set() -> None:
    text = "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END;"
    assert explain_statement(text, "statement_set") == "EXPLAIN CHANGELOG_MODE STATEMENT SET BEGIN INSERT INTO a " \
                                                       "SELECT 1; END"


def test_options_and_boundedness_from_show_create_table() -> None:
    orders = with_options((DATA / "create_orders.txt").read_text())
    small = with_options((DATA / "create_small.txt").read_text())
    assert orders == {"connector": "datagen", "rows-per-second": "5"}
    assert small["number-of-rows"] == "30"
    assert source_bounded(orders) is False and source_bounded(small) is True
    assert source_bounded({"connector": "filesystem", "path": "/x"}) is True
    assert source_bounded({"connector": "filesystem", "source.monitor-interval": "1 s"}) is False
    assert source_bounded({"connector": "kafka"}) is False
    assert source_bounded({"connector": "jdbc"}) is None


def test_bounded_aggregate_updates_and_keeps_one_row_per_key() -> None:
    explain = _explain("aggregate")
    result = verdict(explain, _sources(explain))
    assert result.bounded is True and [s[0] for s in result.sources] == [SMALL]
    assert result.updating and result.ops == ["+I", "+U"]
    assert [op for op, _ in result.state] == ["GroupAggregate"]


def test_unbounded_filter_is_insert_only_without_state() -> None:
    explain = _explain("filter")
    result = verdict(explain, _sources(explain))
    assert result.bounded is False and not result.updating and result.state == []
    text = "\n".join(render(result))
    assert "no: it runs until cancelled" in text and "insert-only" in text and "State:    none" in text


def test_window_aggregate_is_insert_only_with_window_state() -> None:
    explain = _explain("window")
    result = verdict(explain, _sources(explain))
    assert not result.updating and [op for op, _ in result.state] == ["GlobalWindowAggregate"]


def test_join_reads_both_tables_and_keeps_both_inputs() -> None:
    explain = _explain("join")
    result = verdict(explain, _sources(explain))
    assert [s[0] for s in result.sources] == [ORDERS, SMALL]
    assert result.bounded is False  # one unbounded input: the join never ends
    assert [op for op, _ in result.state] == ["Join"]


def test_insert_is_judged_by_what_reaches_its_sink() -> None:
    explain = _explain("insert")
    result = verdict(explain, _sources(explain))
    assert result.updating and result.bounded is True


@pytest.mark.parametrize("name", ["aggregate", "filter", "window", "join", "insert"])
def test_render_fits_one_screen(name: str) -> None:
    explain = _explain(name)
    lines = render(verdict(explain, _sources(explain)))
    assert len(lines) <= 20 and all(len(line) <= 120 for line in lines)


def test_batch_mode_is_bounded_without_streaming_state() -> None:
    explain = _explain("aggregate")
    lines = render(verdict(explain, _sources(explain), batch=True))
    assert "Bounded:  yes (batch mode" in lines[1] and any("none between runs" in line for line in lines)
