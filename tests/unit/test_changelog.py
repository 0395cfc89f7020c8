"""Changelog folding and the value-comparison helpers."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest

from flinklab.grading.changelog import MissingColumnError, final_rows, fold_by_key
from flinklab.grading.parse import ResultTable, parse_output
from flinklab.grading.values import (
    as_decimal,
    as_int,
    as_timestamp,
    cells_match,
    compare_rows,
    describe_difference,
    numbers_close,
)

OUTPUTS = Path(__file__).parent.parent / "data" / "outputs"


def real(name: str) -> ResultTable:
    return parse_output((OUTPUTS / name).read_text()).table


def test_final_rows_of_a_real_streaming_aggregation():
    rows = final_rows(real("pyflink_streaming_agg.out"))
    assert sorted(rows, key=lambda r: r["k"]) == [
        {"k": "a", "n": "2", "s": "4"},
        {"k": "b", "n": "1", "s": None},
    ]


def test_final_rows_of_the_client_demo_and_of_a_count():
    assert final_rows(real("sqlclient_interactive_batch_and_streaming.out")) == [
        {"name": "Alice", "cnt": "1"},
        {"name": "Greg", "cnt": "1"},
        {"name": "Bob", "cnt": "2"},
    ]
    assert final_rows(real("pyflink_streaming_count.out")) == [{"n": "3"}]


def test_final_rows_is_a_multiset_and_batch_is_as_is():
    table = ResultTable(
        columns=["x"],
        rows=[["1"], ["1"], ["1"], ["2"], ["2"]],
        ops=["+I", "+I", "-U", "+I", "-D"],
    )
    assert final_rows(table) == [{"x": "1"}]  # one of the two equal rows survives
    batch = real("pyflink_batch_agg.out")
    assert final_rows(batch) == batch.records()


def test_fold_by_key_last_update_wins_and_delete_removes():
    table = ResultTable(
        columns=["k", "v"],
        rows=[["a", "1"], ["b", "5"], ["a", "1"], ["a", "2"], ["b", "5"], ["c", "9"]],
        ops=["+I", "+I", "-U", "+U", "-D", "+I"],
    )
    folded = fold_by_key(table, ["k"])
    assert folded == {("a",): {"k": "a", "v": "2"}, ("c",): {"k": "c", "v": "9"}}
    assert fold_by_key(table, "k") == folded  # a single column name also works


def test_fold_by_key_on_a_real_output_and_a_missing_column():
    folded = fold_by_key(real("pyflink_streaming_agg.out"), ["k"])
    assert folded[("a",)]["n"] == "2"
    assert folded[("b",)]["s"] is None
    with pytest.raises(MissingColumnError) as err:
        fold_by_key(real("pyflink_streaming_agg.out"), ["tier"])
    assert "tier" in str(err.value) and "k, n, s" in str(err.value)


def test_number_and_timestamp_parsing():
    assert as_decimal("14.00") == Decimal(14)
    assert as_decimal('"1.5"') == Decimal("1.5")
    assert as_decimal("o1") is None and as_decimal(None) is None and as_decimal(True) is None
    assert as_int("7.00") == 7 and as_int("7.5") is None and as_int("x") is None
    assert as_timestamp("2024-01-01 10:00:00.000") == datetime(2024, 1, 1, 10)
    assert as_timestamp("2024-01-01T10:00:01.5") == datetime(2024, 1, 1, 10, 0, 1, 500000)
    assert as_timestamp('"2020-04-15 08:00:00"') == datetime(2020, 4, 15, 8)
    assert as_timestamp("2024-13-01 00:00:00") is None and as_timestamp("tomorrow") is None


def test_numbers_close_and_cells_match():
    assert numbers_close("100.004", Decimal(100))
    assert not numbers_close("100.02", 100)
    assert numbers_close("100.02", 100, tolerance="0.05")
    assert not numbers_close("abc", 1)
    assert cells_match(14, "14.00")
    assert cells_match(datetime(2024, 1, 1, 10), "2024-01-01 10:00:00.000")
    assert not cells_match(datetime(2024, 1, 1, 10), "2024-01-01 10:00:01.000")
    assert cells_match(True, "TRUE") and not cells_match(True, "1")
    assert cells_match(None, None) and not cells_match(None, "0")
    assert cells_match("gold", "gold") and not cells_match("gold", "silver")


def test_compare_rows_ignores_order_and_uses_the_tolerance():
    expected = [("o1", "s1", 0), ("o2", "s2", 7200), ("o3", "s3", Decimal("1.005"))]
    found = [("o3", "s3", "1.00"), ("o1", "s1", "0"), ("o2", "s2", "7200")]
    diff = compare_rows(expected, found)
    assert diff.ok and diff.matched == 3 and diff.describe() == ""


def test_compare_rows_reports_missing_and_unexpected():
    expected = [("o1", 0), ("o2", 7200), ("o2", 7200)]
    found = [{"id": "o1", "d": "0"}, {"id": "o2", "d": "7200"}, {"id": "o9", "d": "7201"}]
    diff = compare_rows(expected, found, columns=["id", "d"])
    assert not diff.ok
    assert diff.missing == [("o2", 7200)]
    assert diff.unexpected == [("o9", "7201")]
    assert diff.describe() == "missing 1 row, e.g. (o2, 7200); unexpected 1 row, e.g. (o9, 7201)"


def test_describe_difference_limits_examples():
    text = describe_difference([(i,) for i in range(5)], [], examples=2)
    assert text == "missing 5 rows, e.g. (0), (1), ..."
    assert describe_difference([], []) == ""
