"""Property-based tests: no input makes the splitter, the output parser, the changelog fold or the cell comparisons
raise anything but our own error type, and what they return keeps its shape.

Inputs are drawn both from all of Unicode and from the tokens these parsers care about (quotes, comments, `;`,
borders, `| op |` rows, footers, `[ERROR]` lines), so the interesting branches are reached, not only plain text.
"""

from __future__ import annotations

import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flinklab.errors import FlinklabError
from flinklab.flink.sql_split import split_statements, strip_comments
from flinklab.grading.changelog import MissingColumnError, final_rows, fold_by_key
from flinklab.grading.parse import CHANGE_OPS, ResultTable, parse_output
from flinklab.grading.values import as_decimal, as_int, as_timestamp, canonical, compare_rows, format_row

FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---- the splitter -------------------------------------------------------------------------------------------------

SQL_TOKENS = st.sampled_from([
    "SELECT 1", "SELECT ';'", ";", "'", "''", '"', "`", "--", "-- c;\n", "/*", "*/", "/*+ HINT */", "\n", " ",
    "EXECUTE STATEMENT SET BEGIN", "INSERT INTO t SELECT 2", "END", "END;", "x", "\r\n", "\t", "é", "😀", "\\",
])
SQL_TEXT = st.one_of(st.text(), st.lists(SQL_TOKENS, max_size=40).map("".join))


@FAST
@given(SQL_TEXT)
def test_splitter_returns_stripped_pieces_of_the_input(text: str):
    try:
        statements = split_statements(text)
    except FlinklabError:
        return
    for statement in statements:
        assert statement and statement == statement.strip()
        assert statement in text
        strip_comments(statement)  # never raises either


@FAST
@given(st.text(alphabet=st.characters(blacklist_characters=";'\"`-/*", blacklist_categories=("Cs",))))
def test_text_without_special_characters_is_one_statement(text: str):
    assert split_statements(text) == ([text.strip()] if text.strip() else [])


# ---- the output parser ----------------------------------------------------------------------------------------------

OUT_LINES = st.sampled_from([
    "+----+-----+", "+----+-----+-----+", "| op |   k |", "| op |   k |   n |", "|  a |   b |", "| +I |   a |",
    "| -U |   a |", "| +U |   b |", "| -D |   a |", "| +I | <NULL> |", "|    k |", "3 rows in set (0.1 seconds)",
    "1 row in set", "Empty set", "Received a total of 2 rows (1.0 seconds)",
    "Query terminated, received a total of 1 row", "[ERROR] Could not execute SQL statement. Reason:",
    "org.apache.flink.table.api.ValidationException: bad", "[INFO] Execute statement succeeded.",
    "[WARNING] w", "Job ID: 0123456789abcdef0123456789abcdef", "Flink SQL> SELECT 1+----+", "", "|", "||", "+-+",
    "Exception in thread \"main\" java.lang.Error", "Failed to initialize from sql script: x", "| 你好 |  1 |",
])
OUTPUT = st.one_of(st.text(), st.lists(st.one_of(OUT_LINES, st.text(max_size=12)), max_size=30).map("\n".join))


@FAST
@given(OUTPUT)
def test_parser_never_raises_and_tables_keep_their_shape(text: str):
    parsed = parse_output(text)
    for table in parsed.tables:
        if table.ops is not None:
            assert len(table.ops) == len(table.rows)
            assert set(table.ops) <= CHANGE_OPS
        if table.columns and not table.problem:
            assert all(len(row) == len(table.columns) for row in table.rows)
        table.records()
        if table.footer_rows is not None:  # the count a footer of the text states
            stated = {int(m.group(1) or m.group(2))
                      for m in re.finditer(r"(\d+) rows? in set|Received a total of (\d+) rows?", text)}
            assert table.footer_rows in stated | ({0} if "Empty set" in text else set())
    assert all(isinstance(e, str) and e for e in parsed.errors)


# ---- the changelog fold ---------------------------------------------------------------------------------------------

CELL = st.one_of(st.none(), st.sampled_from(["a", "b", "1", "1.00", ""]))


@st.composite
def changelogs(draw: st.DrawFn) -> ResultTable:
    width = draw(st.integers(1, 3))
    columns = draw(st.lists(st.sampled_from(["k", "v", "n", "op2"]), min_size=width, max_size=width, unique=True))
    rows = draw(st.lists(st.lists(CELL, min_size=width, max_size=width), max_size=40))
    streaming = draw(st.booleans())
    ops = [draw(st.sampled_from(sorted(CHANGE_OPS))) for _ in rows] if streaming else None
    return ResultTable(columns=columns, rows=rows, ops=ops, footer_rows=draw(st.one_of(st.none(), st.integers(0))))


def _final_rows_by_scanning(table: ResultTable) -> list[dict]:
    """The fold as first written (a retraction scans back for the most recent equal row): the oracle."""
    if table.ops is None:
        return table.records()
    alive: list[tuple] = []
    for op, row in zip(table.ops, table.rows):
        if op in ("+I", "+U"):
            alive.append(tuple(row))
        else:
            for idx in range(len(alive) - 1, -1, -1):
                if alive[idx] == tuple(row):
                    del alive[idx]
                    break
    return [dict(zip(table.columns, values)) for values in alive]


@FAST
@given(changelogs())
def test_final_rows_agrees_with_the_scanning_fold(table: ResultTable):
    assert final_rows(table) == _final_rows_by_scanning(table)


@FAST
@given(changelogs(), st.lists(st.sampled_from(["k", "v", "n", "zz"]), min_size=1, max_size=2))
def test_fold_by_key_raises_only_our_missing_column(table: ResultTable, key: list[str]):
    try:
        folded = fold_by_key(table, key)
    except MissingColumnError as exc:
        assert isinstance(exc, FlinklabError) and exc.column in key and exc.column not in table.columns
        return
    assert len(folded) <= len(table.rows)
    for k, row in folded.items():
        assert tuple(row[c] for c in key) == k


# ---- cells --------------------------------------------------------------------------------------------------------

VALUE = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.decimals(), st.text(max_size=30),
                  st.sampled_from(["NaN", "1e999999999", "9" * 500, "-0.00", "2024-01-01 10:00:00.123", "TRUE"]))


@FAST
@given(st.lists(st.tuples(VALUE, VALUE), max_size=12), st.randoms(use_true_random=False))
def test_cells_compare_without_raising_and_order_does_not_matter(rows: list[tuple], rnd: random.Random):
    for a, b in rows:
        as_decimal(a), as_int(a), as_timestamp(a), canonical(a), format_row((a, b))
    shuffled = rows[:]
    rnd.shuffle(shuffled)
    diff = compare_rows(rows, shuffled)
    assert not diff.missing and not diff.unexpected, diff.describe()
    assert diff.matched == len(rows)
