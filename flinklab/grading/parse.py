"""Parse saved sql-client output: the real client's and this project's runner's.

`parse_output` returns every result table (header, cells with `<NULL>` as None, the streaming op column, the
footer's row count or None when the output was cut short), the `[ERROR]` reasons, the `[INFO]`/`[WARNING]` lines
and the submitted job ids. It understands the client's footers (`N rows in set (x.xx seconds)`, `Empty set`,
`Received a total of N rows`), `Flink SQL> ` prompts and CRLF line ends.

The parser reads line by line but never assumes a token starts a line: the real client glues the statement echo
onto the first border (`> SELECT COUNT(*)+-----+`) and onto `[ERROR]` (`Flink SQL> SELECT 1[ERROR] ...`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

NULL_CELL = "<NULL>"
CHANGE_OPS = frozenset({"+I", "-U", "+U", "-D"})

# A border ends its line; whatever precedes it is a glued statement echo (found by `_border_start`, which is
# linear in the line's length where a regex search would backtrack quadratically on a long run of `+-`).
_BORDER = re.compile(r"\+(?:-+\+)+[ \t]*$")
_ROW = re.compile(r"^\|.*\|[ \t]*$")
_FOOTER = re.compile(
    r"(?:(?<!\d)(?P<batch>\d+) rows? in set"  # the lookbehind keeps a long run of digits linear
    r"|(?P<empty>Empty set)"
    r"|(?P<terminated>Query terminated, received a total of \d+ rows?)"
    r"|Received a total of (?P<stream>\d+) rows?)"
    r"(?: \((?P<seconds>[\d.]+) seconds\))?"
)
_TAG = re.compile(r"\[(?P<level>INFO|ERROR|WARNING)\] ?(?P<text>.*)$")
_STATEMENT_ERROR = "Could not execute SQL statement. Reason:"
_JOB_ID = re.compile(r"Job ID: (?P<id>[0-9a-f]{32})\b")
# Errors that are not `[ERROR]` lines: a failing init file, or a JVM dying on stderr (2>&1 keeps it in the file).
_OTHER_ERROR = re.compile(r"(Failed to initialize from sql script: .*|Exception in thread \".*)$")


@dataclass
class ResultTable:
    """One printed result (tableau)."""

    columns: list[str]  # header names, without the streaming `op` column
    rows: list[list[str | None]]  # cell texts, stripped; None where the cell was <NULL>
    ops: list[str] | None = None  # per row "+I"/"-U"/"+U"/"-D" in streaming; None in batch (no op column)
    footer_rows: int | None = None  # the count the footer states; None when no footer was printed (truncated)
    problem: str = ""  # why the table is malformed (a row whose cells do not fit the header); "" when it is not

    @property
    def streaming(self) -> bool:
        return self.ops is not None

    @property
    def complete(self) -> bool:
        return self.footer_rows is not None

    def records(self) -> list[dict[str, str | None]]:
        """Rows as dicts keyed by column name (ops not included)."""
        return [dict(zip(self.columns, row, strict=False)) for row in self.rows]

    def ops_seen(self) -> set[str]:
        return set(self.ops or ())


@dataclass
class ParsedOutput:
    tables: list[ResultTable] = field(default_factory=list)  # in output order; `Empty set` is a table with 0 rows
    errors: list[str] = field(default_factory=list)  # the reason text after `[ERROR] Could not execute SQL statement.`
    infos: list[str] = field(default_factory=list)  # text of `[INFO] ...` lines
    warnings: list[str] = field(default_factory=list)  # text of `[WARNING] ...` lines
    job_ids: list[str] = field(default_factory=list)  # `Job ID: <hex>` lines (INSERT submissions), in order

    @property
    def table(self) -> ResultTable | None:
        """The last result table (a step normally prints one)."""
        return self.tables[-1] if self.tables else None

    @property
    def failed(self) -> bool:
        return bool(self.errors)


def parse_output(text: str) -> ParsedOutput:
    """Parse a whole saved `.out` file."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out = ParsedOutput()
    i = 0
    while i < len(lines):
        line = lines[i]
        start = _border_start(line)
        if start is not None and _is_table_start(lines, i):
            table, i = _read_table(lines, i, start)
            out.tables.append(table)
            continue
        i = _read_line(lines, i, out)
    return out


def _border_start(line: str) -> int | None:
    """Where a border (`+---+--+`) that ends `line` starts, or None: the first `+` after the last `++` of the
    trailing run of `+`/`-`, which must hold a `-` and end with `+` (the regex `_BORDER`, without backtracking)."""
    text = line.rstrip(" \t")
    if not text.endswith("-+"):
        return None
    run_start = len(text.rstrip("+-"))
    tail = text[run_start:]
    doubled = tail.rfind("++")
    offset = doubled + 1 if doubled >= 0 else tail.find("+")
    return run_start + offset if "-" in tail[offset:] else None


def _is_table_start(lines: list[str], i: int) -> bool:
    """A border, then a row, then a border: the header of a table."""
    return (
        i + 2 < len(lines)
        and _ROW.match(lines[i + 1].strip()) is not None
        and _BORDER.fullmatch(lines[i + 2].strip()) is not None
    )


def _read_line(lines: list[str], i: int, out: ParsedOutput) -> int:
    """Record the tags, job ids, errors and stray footers of one non-table line; return the next index."""
    line = lines[i]
    job = _JOB_ID.search(line)
    if job:
        out.job_ids.append(job.group("id"))
    tag = _TAG.search(line)
    if tag:
        level, body = tag.group("level"), tag.group("text").strip()
        if level == "INFO":
            out.infos.append(body)
        elif level == "WARNING":
            out.warnings.append(body)
        elif _STATEMENT_ERROR in body:
            rest = body.split(_STATEMENT_ERROR, 1)[1].strip()
            reason, nxt = _read_paragraph(lines, i + 1)
            out.errors.append("\n".join(part for part in (rest, reason) if part) or "(no reason printed)")
            return nxt
        else:
            out.errors.append(body)
        return i + 1
    other = _OTHER_ERROR.search(line)
    if other:
        out.errors.append(other.group(1).strip())
        return i + 1
    if "Empty set" in line:
        # `Empty set` draws no table at all.
        out.tables.append(ResultTable(columns=[], rows=[], ops=None, footer_rows=0))
    return i + 1


def _read_paragraph(lines: list[str], i: int) -> tuple[str, int]:
    """The next non-empty line(s) up to a blank line: an error's reason."""
    while i < len(lines) and not lines[i].strip():
        i += 1
    start = i
    while i < len(lines) and lines[i].strip():
        i += 1
    return "\n".join(line.rstrip() for line in lines[start:i]), i


def _read_table(lines: list[str], i: int, offset: int) -> tuple[ResultTable, int]:
    """Read a table whose first border starts at column `offset` of line `i`; return it and the next index."""
    border = lines[i][offset:].rstrip()
    widths = [len(seg) - 2 for seg in border.strip("+").split("+")]
    header = _split_row(lines[i + 1].strip(), widths)
    problem = "" if header is not None else \
        f"line {i + 2}: the header's cells do not fit the border's {len(widths)} columns"
    header = header or []
    i += 3  # border, header, border
    rows: list[list[str]] = []
    slices = _cell_slices(widths)
    while i < len(lines):
        line = lines[i].strip()
        row = _split_row(line, widths, slices)
        if row is None:
            # the closing border, a footer, or a row cut off mid-way (the file's last line); a `| ... |` line
            # that does not fit and is followed by more is a malformed table (a header with one cell too many)
            if not problem and _ROW.match(line) and i + 1 < len(lines) and lines[i + 1].strip():
                cells = len(line[1:-1].split("|"))
                problem = f"line {i + 1}: a row of {cells} cells under a header of {len(widths)}"
            break
        rows.append(row)
        i += 1
    if i < len(lines) and _BORDER.fullmatch(lines[i].strip()):
        i += 1  # closing border (absent for a streaming result of 0 rows, and when output was cut off)
    footer_rows = None
    if i < len(lines) and (" row" in lines[i] or "Empty set" in lines[i]):  # cheap test before the regex
        footer = _FOOTER.search(lines[i])
        if footer:
            footer_rows = _footer_count(footer)
            i += 1
    ops = None
    if header and header[0] == "op" and all(row[0] in CHANGE_OPS for row in rows):
        ops = [row[0] for row in rows]
        header = header[1:]
        for row in rows:
            del row[0]  # in place: a changelog can hold millions of rows
    for row in rows:
        if NULL_CELL in row:
            row[:] = [None if cell == NULL_CELL else cell for cell in row]
    return ResultTable(columns=header, rows=rows, ops=ops, footer_rows=footer_rows, problem=problem), i


def _footer_count(match: re.Match) -> int | None:
    if match.group("terminated"):
        return None  # Ctrl-C: the result is not complete
    if match.group("empty"):
        return 0
    return int(match.group("batch") or match.group("stream"))


def _split_row(line: str, widths: list[int], slices: list[slice] | None = None) -> list[str] | None:
    """Cells of `| a | b |`: by the border's column widths when they fit (a cell may hold `|`), else by `|`.

    None when the line is not a whole row of this table. `slices` are the cells' positions (`_cell_slices`),
    computed once per table.
    """
    if len(line) < 2 or line[0] != "|" or line[-1] != "|":  # `_ROW` on a stripped line, without a regex
        return None
    slices = slices if slices is not None else _cell_slices(widths)
    if slices and len(line) == slices[-1].stop + 2:  # the row is as wide as the border
        return [line[cut].strip() for cut in slices]
    # Wide (e.g. CJK) characters take two columns on screen, so positions shift: split on the separators.
    cells = [cell.strip() for cell in line[1:-1].split("|")]
    return cells if len(cells) == len(widths) else None


def _cell_slices(widths: list[int]) -> list[slice]:
    """Where each cell's text is in a row whose columns have `widths` (`| ` before a cell, ` |` after it)."""
    slices, pos = [], 1
    for width in widths:
        slices.append(slice(pos + 1, pos + 1 + width))
        pos += width + 3
    return slices
