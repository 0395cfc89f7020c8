"""Tableau layout against text real Flink printed (anchors.md §2.4/§2.5, flink-facts.md §1g, the SQL client's
own golden tests and a public sql-client session kept in tests/data/outputs/)."""

from __future__ import annotations

from flinklab.sqlclient import tableau
from flinklab.sqlclient.tableau import ColumnType


def lines(text: str) -> list[str]:
    return text.strip("\n").split("\n")


def test_batch_count_as_the_2x_client_prints_it_with_time_cost() -> None:
    # anchors.md §2.4: a Flink 2.x `sql-client.sh -f` capture
    expected = """
+-----+
| cnt |
+-----+
|  10 |
+-----+
1 row in set (296.71 seconds)
"""
    assert tableau.render_batch(["cnt"], [["10"]], seconds=296.71) == lines(expected)


def test_batch_widths_come_from_the_data() -> None:
    # a real sql-client session (tests/data/outputs/sqlclient_interactive_batch_and_streaming.out)
    expected = """
+-------+-----+
|  name | cnt |
+-------+-----+
| Alice |   1 |
|   Bob |   2 |
|  Greg |   1 |
+-------+-----+
3 rows in set
"""
    rows = [["Alice", "1"], ["Bob", "2"], ["Greg", "1"]]
    assert tableau.render_batch(["name", "cnt"], rows) == lines(expected)


def test_streaming_widths_come_from_the_types_and_rows_carry_the_op_column() -> None:
    # the same session, streaming: STRING -> 30, BIGINT -> 20
    expected = """
+----+--------------------------------+----------------------+
| op |                           name |                  cnt |
+----+--------------------------------+----------------------+
| +I |                            Bob |                    1 |
| +I |                          Alice |                    1 |
| +I |                           Greg |                    1 |
| -U |                            Bob |                    1 |
| +U |                            Bob |                    2 |
+----+--------------------------------+----------------------+
Received a total of 5 rows
"""
    table = tableau.StreamingTableau([ColumnType("name", "VARCHAR"), ColumnType("cnt", "BIGINT")])
    changes = [
        ("+I", "Bob", "1"),
        ("+I", "Alice", "1"),
        ("+I", "Greg", "1"),
        ("-U", "Bob", "1"),
        ("+U", "Bob", "2"),
    ]
    out = table.header() + [table.row(kind, cells) for kind, *cells in changes] + table.footer()
    assert out == lines(expected)


def test_streaming_with_no_rows_has_no_closing_border_and_singular_row() -> None:
    # Flink's SQL client golden test (tests/data/outputs/sqlclient_q_zero_rows.out), max width 20
    expected = """
+--------------+----------------------+----------------------+
|          dec |                   ch |                  vch |
+--------------+----------------------+----------------------+
Received a total of 0 row
"""
    columns = [ColumnType("dec", "DECIMAL", 10), ColumnType("ch", "CHAR"), ColumnType("vch", "VARCHAR")]
    table = tableau.StreamingTableau(columns, max_width=20)
    assert [line[5:] for line in table.header()] == lines(expected)[:3]  # the capture has no op column
    assert table.footer() == ["Received a total of 0 row"]
    assert table.footer(1.5) == ["Received a total of 0 row (1.50 seconds)"]


def test_pyflink_print_of_a_streaming_window_aggregation() -> None:
    # anchors.md §2.5: PyFlink TableResult.print(); TIMESTAMP(3) -> 23, DECIMAL(38, 2) -> 40
    expected = """
+----+-------------------------+-------------------------+------------------------------------------+
| op |            window_start |              window_end |                                    total |
+----+-------------------------+-------------------------+------------------------------------------+
| +I | 2020-04-15 08:00:00.000 | 2020-04-15 08:10:00.000 |                                    14.00 |
| +I | 2020-04-15 08:10:00.000 | 2020-04-15 08:20:00.000 |                                     1.00 |
+----+-------------------------+-------------------------+------------------------------------------+
2 rows in set
"""
    columns = [
        ColumnType("window_start", "TIMESTAMP_WITHOUT_TIME_ZONE", 3),
        ColumnType("window_end", "TIMESTAMP_WITHOUT_TIME_ZONE", 3),
        ColumnType("total", "DECIMAL", 38),
    ]
    rows = [
        ["2020-04-15 08:00:00.000", "2020-04-15 08:10:00.000", "14.00"],
        ["2020-04-15 08:10:00.000", "2020-04-15 08:20:00.000", "1.00"],
    ]
    assert tableau.render_typed(columns, rows, ["+I", "+I"]) == lines(expected)


def test_pyflink_print_in_batch_has_type_widths_and_no_op_column() -> None:
    # flink-facts.md §1g
    expected = """
+--------------------------------+----------------------+
|                            tbl |                    n |
+--------------------------------+----------------------+
|                          users |                    3 |
|                         orders |                    7 |
|                      shipments |                    6 |
|                          rates |                    5 |
+--------------------------------+----------------------+
4 rows in set
"""
    rows = [["users", "3"], ["orders", "7"], ["shipments", "6"], ["rates", "5"]]
    columns = [ColumnType("tbl", "VARCHAR"), ColumnType("n", "BIGINT")]
    assert tableau.render_typed(columns, rows) == lines(expected)


def test_type_widths_for_every_sized_type() -> None:
    columns = [
        ColumnType("a", "TINYINT"),
        ColumnType("b", "SMALLINT"),
        ColumnType("c", "INTEGER"),
        ColumnType("d", "BIGINT"),
        ColumnType("e", "DECIMAL", 10),
        ColumnType("f", "BOOLEAN"),
        ColumnType("g", "DATE"),
        ColumnType("h", "TIME_WITHOUT_TIME_ZONE", 0),
        ColumnType("i", "TIME_WITHOUT_TIME_ZONE", 3),
        ColumnType("j", "TIMESTAMP_WITHOUT_TIME_ZONE", 0),
        ColumnType("k", "TIMESTAMP_WITH_LOCAL_TIME_ZONE", 6),
        ColumnType("l", "TIMESTAMP_WITHOUT_TIME_ZONE", 9),
        ColumnType("m", "VARCHAR"),
        ColumnType("a_very_long_column_name_beyond_thirty", "VARCHAR"),
    ]
    # BOOLEAN (5) and TINYINT (4) widen to fit `<NULL>`; a long name is never cut in streaming
    assert tableau.column_widths_by_type(columns) == [6, 6, 11, 20, 12, 6, 10, 8, 12, 19, 26, 29, 30, 37]
    assert tableau.column_widths_by_type(columns[:1], print_null_as_empty=True, print_row_kind=True) == [2, 4]


def test_long_cells_are_cut_to_the_max_width_with_dots() -> None:
    text = "abcdefghijklmnopqrstuvwxyz0123456789"
    out = tableau.render_batch(["s"], [[text]])
    assert out[3] == "| abcdefghijklmnopqrstuvwxyz0... |"
    assert len(out[0]) == 30 + 4
    # batch also cuts a long header; a custom width applies
    assert tableau.render_batch(["x" * 12], [["1"]], max_width=8)[1] == "| xxxxx... |"


def test_wide_characters_count_twice() -> None:
    assert tableau.display_width("こんにちは") == 10
    out = tableau.render_batch(["jp", "n"], [["こんにちは", "1"], ["a", "22"]])
    assert out == [
        "+------------+----+",
        "|         jp |  n |",
        "+------------+----+",
        "| こんにちは |  1 |",
        "|          a | 22 |",
        "+------------+----+",
        "2 rows in set",
    ]
    # truncation never splits the width budget: 7 cells left for 2-cell characters -> 3 of them and a pad
    assert tableau.format_row(["一二三四五六七"], [10]) == "|  一二三... |"


def test_footers() -> None:
    assert tableau.batch_footer(0) == "Empty set"
    assert tableau.batch_footer(0, 0.123) == "Empty set (0.12 seconds)"
    assert tableau.batch_footer(1, 2.0) == "1 row in set (2.00 seconds)"
    assert tableau.batch_footer(12) == "12 rows in set"
    assert tableau.streaming_footer(1) == "Received a total of 1 row"
    assert tableau.streaming_footer(3, 0.5) == "Received a total of 3 rows (0.50 seconds)"
    assert tableau.render_batch(["a"], [], seconds=1.0) == ["Empty set (1.00 seconds)"]


def test_content_results_print_null_as_empty_and_are_not_cut() -> None:
    plan = "== Abstract Syntax Tree ==\nLogicalProject(k=[$0])\n" + "x" * 40
    out = tableau.render_content(["result"], [[plan]])
    assert out[0] == "+" + "-" * (len(plan) + 2) + "+"
    assert out[3] == f"| {plan} |"
    assert out[-1] == "1 row in set"
    describe = tableau.render_content(["name", "key"], [["k", None], ["n", "PRI(n)"]])
    assert describe[3] == "|    k |        |"
    assert tableau.render_content(["a"], []) == ["Empty set"]
