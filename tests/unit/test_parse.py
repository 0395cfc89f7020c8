"""The output parser on real captured outputs (tests/data/outputs/README.md says where each came from)."""

from __future__ import annotations

from pathlib import Path

import pytest

from flinklab.grading.parse import parse_output

OUTPUTS = Path(__file__).parent.parent / "data" / "outputs"
RUNNER_CAPTURES = Path(__file__).parent.parent / "data" / "runner"


def parse(name: str):
    # read bytes: CRLF variants must reach the parser unchanged
    return parse_output((OUTPUTS / name).read_bytes().decode("utf-8"))


def test_real_2x_client_with_echo_glued_to_the_border():
    out = parse("sqlclient2x_count_glued_echo.out")
    assert len(out.tables) == 1
    table = out.table
    assert table.columns == ["cnt"]
    assert table.rows == [["10"]]
    assert table.ops is None and not table.streaming
    assert table.footer_rows == 1 and table.complete
    assert out.infos == ["Executing SQL from file.", "Execute statement succeeded."]
    assert out.errors == [] and not out.failed


def test_real_2x_client_error_glued_to_the_echo():
    out = parse("sqlclient2x_error.out")
    assert out.tables == []
    assert out.errors == [
        "org.apache.calcite.sql.validate.SqlValidatorException: Object 'db_lab' not found within 'paimon'"
    ]
    assert out.failed


@pytest.mark.parametrize(
    "crlf, lf",
    [
        ("derived_crlf_sqlclient2x_count_glued_echo.out", "sqlclient2x_count_glued_echo.out"),
        ("derived_crlf_sqlclient2x_error.out", "sqlclient2x_error.out"),
        ("derived_crlf_streaming_agg.out", "pyflink_streaming_agg.out"),
    ],
)
def test_crlf_parses_like_lf(crlf, lf):
    assert b"\r\n" in (OUTPUTS / crlf).read_bytes()
    assert parse(crlf) == parse(lf)
    assert parse(crlf).errors == parse(lf).errors
    for table in parse(crlf).tables:
        assert all("\r" not in (cell or "") for row in table.rows for cell in row)


def test_streaming_changelog_with_null():
    table = parse("pyflink_streaming_agg.out").table
    assert table.columns == ["k", "n", "s"]
    assert table.ops == ["+I", "+I", "-U", "+U"]
    assert table.rows == [["a", "1", "1"], ["b", "1", None], ["a", "1", "1"], ["a", "2", "4"]]
    assert table.ops_seen() == {"+I", "-U", "+U"}
    assert table.footer_rows == 4
    assert table.records()[1] == {"k": "b", "n": "1", "s": None}


def test_batch_rows_with_null_and_timestamps():
    table = parse("pyflink_batch_rows.out").table
    assert table.columns == ["k", "v", "ts"]
    assert table.rows[1] == ["b", None, "2024-01-01 10:05:00.000"]
    assert not table.streaming and table.footer_rows == 3


def test_window_output_from_anchors():
    table = parse("pyflink_streaming_window.out").table
    assert table.columns == ["window_start", "window_end", "total"]
    assert table.ops == ["+I", "+I"]
    assert [r[2] for r in table.rows] == ["14.00", "1.00"]


@pytest.mark.parametrize("name", ["pyflink_batch_empty.out", "pyflink_streaming_empty.out"])
def test_empty_set_is_a_table_with_no_rows(name):
    out = parse(name)
    assert len(out.tables) == 1
    assert out.table.rows == [] and out.table.footer_rows == 0 and out.table.complete


def test_streaming_zero_rows_header_without_closing_border():
    table = parse("sqlclient_q_zero_rows.out").table
    assert table.columns == ["dec", "ch", "vch"]
    assert table.rows == []
    assert table.footer_rows == 0


def test_interactive_session_with_two_tables_and_multiline_echo():
    out = parse("sqlclient_interactive_batch_and_streaming.out")
    assert len(out.tables) == 2
    batch, stream = out.tables
    assert not batch.streaming and batch.rows == [["Alice", "1"], ["Bob", "2"], ["Greg", "1"]]
    assert stream.ops == ["+I", "+I", "+I", "-U", "+U"]
    assert stream.footer_rows == 5
    assert out.table is stream
    assert out.infos.count("Execute statement succeed.") == 3  # the 1.x wording


def test_insert_submission_job_id():
    out = parse("sqlclient_insert_job_id.out")
    assert out.job_ids == ["6f922fe5cba87406ff23ae4a7bb79044"]
    assert out.tables == []


def test_truncated_mid_row_keeps_whole_rows_and_has_no_footer():
    table = parse("derived_truncated_streaming_agg.out").table
    assert table.ops == ["+I", "+I", "-U"]
    assert len(table.rows) == 3
    assert table.footer_rows is None and not table.complete


def test_truncated_after_last_row():
    table = parse("derived_truncated_sqlclient2x_count.out").table
    assert table.rows == [["10"]]
    assert not table.complete


def test_table_then_error():
    out = parse("derived_table_then_error.out")
    assert len(out.tables) == 1 and out.table.rows == [["10"]]
    assert len(out.errors) == 1 and "Object 'db_lab' not found" in out.errors[0]


def test_multiline_reason_stops_at_blank_line_and_other_levels():
    text = (
        "Flink SQL> SELECT x FROM t[ERROR] Could not execute SQL statement. Reason:\n"
        "org.apache.flink.table.api.ValidationException: first line\n"
        "second line of the same reason\n"
        "\n"
        "[WARNING] something to note\n"
    )
    out = parse_output(text)
    assert out.errors == [
        "org.apache.flink.table.api.ValidationException: first line\nsecond line of the same reason"
    ]
    assert out.warnings == ["something to note"]


def test_garbage_is_not_a_table():
    assert parse_output("").tables == []
    assert parse_output("+---+\nnot a row\n+---+\n").tables == []


def test_cells_holding_a_pipe_are_split_by_column_width():
    # the real batch capture with one cell rewritten to hold `|` at the same width
    text = (
        (OUTPUTS / "pyflink_batch_rows.out")
        .read_text()
        .replace("                             a |", "                           a|b |", 1)
    )
    table = parse_output(text).table
    assert table.rows[0][0] == "a|b"
    assert len(table.rows[0]) == 3


def runner(name: str):
    return parse_output((RUNNER_CAPTURES / name).read_text(encoding="utf-8"))


def test_runner_batch_capture():
    out = runner("batch.out")
    assert len(out.tables) == 2 and out.errors == []
    shops, count = out.tables
    assert shops.columns == ["shop", "n", "revenue", "last_ts"] and not shops.streaming
    assert shops.rows[0] == ["A", "4", "34.00", "2024-01-01 09:25:00.000"]
    assert shops.footer_rows == 3 and count.rows == [["7"]] and count.footer_rows == 1


def test_runner_streaming_capture_folds_to_the_final_values():
    from flinklab.grading.changelog import fold_by_key

    updating, window = runner("streaming_changelog.out").tables
    assert updating.ops_seen() == {"+I", "-U", "+U"} and len(updating.rows) == updating.footer_rows == 11
    final = fold_by_key(updating, ["shop"])
    assert {k[0]: (r["n"], r["revenue"]) for k, r in final.items()} == {
        "A": ("4", "34.00"),
        "B": ("2", "50.00"),
        "C": ("1", "50.00"),
    }
    assert window.ops_seen() == {"+I"} and window.complete


def test_runner_empty_capture():
    streaming, batch = runner("empty.out").tables
    assert streaming.streaming and streaming.columns == ["order_id", "shop"]
    assert streaming.rows == [] and streaming.footer_rows == 0
    assert not batch.streaming and batch.rows == [] and batch.footer_rows == 0


def test_runner_error_captures():
    out = runner("error.out")
    assert out.tables == [] and out.errors == [
        "org.apache.calcite.sql.validate.SqlValidatorException: Object 'order_typo' not found"
    ]
    mode = runner("result_mode_error.out")
    assert len(mode.errors) == 1 and "sql-client.execution.result-mode" in mode.errors[0]


def test_runner_insert_plan_capture():
    out = runner("insert_plan.out")
    assert out.job_ids == ["cd3c567779e870931e04b42535b6b30e"]
    assert "Execute statement succeeded." in out.infos and out.errors == []
    show, describe = out.tables
    assert show.rows == [["orders"], ["sink"]]
    assert describe.columns[:2] == ["name", "type"] and describe.rows[2][1] == "DECIMAL(10, 2)"
    assert describe.rows[0][3] == ""  # the real client prints these NULL cells empty
