"""Flink's tableau result format, line for line (TableauStyle and the SQL client's CliTableauResultView).

Pure text: cells arrive as strings already rendered by Flink's own RowDataToStringConverter (the runner asks the
JVM for them), so DECIMAL scale, TIMESTAMP precision, `TRUE`/`FALSE` and `<NULL>` are Flink's, not ours. What lives
here is the layout: borders, right-aligned cells, column widths (from the types in streaming, from the data in
batch), truncation with `...`, East Asian wide characters counting twice, and the footers.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

NULL_VALUE = "<NULL>"
ROW_KIND_COLUMN = "op"
TRUNCATED_FLAG = "..."
#: `table.display.max-column-width` default.
DEFAULT_MAX_COLUMN_WIDTH = 30
#: SHOW/DESCRIBE/EXPLAIN/`SET;` results are printed without a width cap (Java's Integer.MAX_VALUE).
UNLIMITED_WIDTH = 2**31 - 1


@dataclass(frozen=True)
class ColumnType:
    """A result column: its name and its logical type's root (Flink's LogicalTypeRoot name) and precision."""

    name: str
    type_root: str  # e.g. INTEGER, BIGINT, DECIMAL, VARCHAR, TIMESTAMP_WITHOUT_TIME_ZONE
    precision: int | None = None  # DECIMAL precision, TIME/TIMESTAMP fractional digits


def is_full_width(ch: str) -> bool:
    """Wide and fullwidth characters (East Asian Width W/F) take two terminal cells, as in Flink."""
    return unicodedata.east_asian_width(ch) in ("W", "F")


def display_width(text: str) -> int:
    return len(text) + sum(1 for ch in text if is_full_width(ch))


def _timestamp_width(precision: int) -> int:
    base = 19  # uuuu-MM-dd HH:mm:ss
    if precision == 0:
        return base
    if precision <= 3:
        return base + 4
    if precision <= 6:
        return base + 7
    return base + 10


def _type_width(column: ColumnType, max_width: int) -> int:
    root, precision = column.type_root, column.precision
    if root == "TINYINT":
        return 4  # precision 3, plus a sign
    if root == "SMALLINT":
        return 6
    if root == "INTEGER":
        return 11
    if root == "BIGINT":
        return 20
    if root == "DECIMAL":
        return (precision if precision is not None else 10) + 2  # sign and decimal point
    if root == "BOOLEAN":
        return 5
    if root == "DATE":
        return 10
    if root == "TIME_WITHOUT_TIME_ZONE":
        p = precision or 0
        return 8 if p == 0 else p + 9
    if root in ("TIMESTAMP_WITHOUT_TIME_ZONE", "TIMESTAMP_WITH_LOCAL_TIME_ZONE"):
        return _timestamp_width(6 if precision is None else precision)
    return max_width


def column_widths_by_type(
    columns: Sequence[ColumnType],
    max_width: int = DEFAULT_MAX_COLUMN_WIDTH,
    *,
    print_null_as_empty: bool = False,
    print_row_kind: bool = False,
) -> list[int]:
    """Streaming widths: from the types, known before any row arrives (TableauStyle.columnWidthsByType)."""
    widths = []
    for column in columns:
        width = _type_width(column, max_width)
        if not print_null_as_empty:
            width = max(width, len(NULL_VALUE))
        widths.append(max(len(column.name), width))  # a long name is never cut here
    return [len(ROW_KIND_COLUMN), *widths] if print_row_kind else widths


def column_widths_by_content(
    names: Sequence[str], rows: Iterable[Sequence[str]], max_width: int = DEFAULT_MAX_COLUMN_WIDTH
) -> list[int]:
    """Batch widths: the widest of name and cells, capped at `max_width` (TableauStyle.columnWidthsByContent)."""
    widths = [len(name) for name in names]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], display_width(cell))
    return [min(width, max_width) for width in widths]


def border_line(widths: Sequence[int]) -> str:
    return "+" + "".join("-" * (width + 2) + "+" for width in widths)


def _truncate(cell: str, target: int) -> str:
    passed = 0
    cut = len(cell)
    for i, ch in enumerate(cell):
        passed += 2 if is_full_width(ch) else 1
        if passed > target:
            cut = i
            break
    head = cell[:cut]
    lacking = target - display_width(head)
    return " " * lacking + head if lacking > 0 else head


def format_row(cells: Sequence[str], widths: Sequence[int]) -> str:
    """`| a | b |` with each cell right-aligned; a cell wider than its column ends in `...`."""
    parts = ["|"]
    for cell, width in zip(cells, widths):
        parts.append(" ")
        shown = display_width(cell)
        if shown <= width:
            parts.append(" " * (width - shown) + cell)
        else:
            parts.append(_truncate(cell, width - len(TRUNCATED_FLAG)) + TRUNCATED_FLAG)
        parts.append(" |")
    return "".join(parts)


def time_suffix(seconds: float | None) -> str:
    """` (1.23 seconds)` when the client prints time costs (`sql-client.display.print-time-cost`), else ``."""
    return "" if seconds is None else f" ({seconds:.2f} seconds)"


def _row_term(count: int) -> str:
    return "rows" if count > 1 else "row"


def batch_footer(count: int, seconds: float | None = None) -> str:
    if count == 0:
        return "Empty set" + time_suffix(seconds)
    return f"{count} {_row_term(count)} in set" + time_suffix(seconds)


def streaming_footer(count: int, seconds: float | None = None) -> str:
    return f"Received a total of {count} {_row_term(count)}" + time_suffix(seconds)


def render_batch(
    names: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    max_width: int = DEFAULT_MAX_COLUMN_WIDTH,
    seconds: float | None = None,
) -> list[str]:
    """A batch query result as the SQL client prints it: data-inferred widths, no table at all when empty."""
    if not rows:
        return [batch_footer(0, seconds)]
    widths = column_widths_by_content(names, rows, max_width)
    border = border_line(widths)
    lines = [border, format_row(names, widths), border]
    lines += [format_row(row, widths) for row in rows]
    lines += [border, batch_footer(len(rows), seconds)]
    return lines


def render_typed(
    columns: Sequence[ColumnType],
    rows: Sequence[Sequence[str]],
    kinds: Sequence[str] | None = None,
    *,
    max_width: int = DEFAULT_MAX_COLUMN_WIDTH,
) -> list[str]:
    """Rows with type-inferred widths and the `TableauStyle.print` footer (`N rows in set`), which is what
    PyFlink's `TableResult.print()` writes; `kinds` adds the `op` column."""
    if not rows:
        return ["Empty set"]
    widths = column_widths_by_type(columns, max_width, print_row_kind=kinds is not None)
    names = [c.name for c in columns]
    border = border_line(widths)
    header = [ROW_KIND_COLUMN, *names] if kinds is not None else names
    lines = [border, format_row(header, widths), border]
    for i, row in enumerate(rows):
        lines.append(format_row([kinds[i], *row] if kinds is not None else row, widths))
    lines += [border, batch_footer(len(rows))]
    return lines


class StreamingTableau:
    """The streaming tableau, printed as rows arrive: header first, an `op` column, type-inferred widths."""

    def __init__(self, columns: Sequence[ColumnType], max_width: int = DEFAULT_MAX_COLUMN_WIDTH):
        self.widths = column_widths_by_type(columns, max_width, print_row_kind=True)
        self.border = border_line(self.widths)
        self.names = [ROW_KIND_COLUMN, *(c.name for c in columns)]
        self.count = 0

    def header(self) -> list[str]:
        return [self.border, format_row(self.names, self.widths), self.border]

    def row(self, kind: str, cells: Sequence[str]) -> str:
        self.count += 1
        return format_row([kind, *cells], self.widths)

    def footer(self, seconds: float | None = None) -> list[str]:
        """The closing border (only when a row was printed) and `Received a total of N rows`."""
        lines = [self.border] if self.count > 0 else []
        return lines + [streaming_footer(self.count, seconds)]


def render_content(names: Sequence[str], rows: Sequence[Sequence[str | None]]) -> list[str]:
    """SHOW / DESCRIBE / EXPLAIN / `SET;` output: data-inferred, uncapped widths, NULL as an empty cell and a
    footer without time (the client's default printing of a statement result with content)."""
    cells = [["" if cell is None else cell for cell in row] for row in rows]
    if not cells:
        return ["Empty set"]
    widths = column_widths_by_content(names, cells, UNLIMITED_WIDTH)
    border = border_line(widths)
    lines = [border, format_row(names, widths), border]
    lines += [format_row(row, widths) for row in cells]
    lines += [border, batch_footer(len(cells))]
    return lines
