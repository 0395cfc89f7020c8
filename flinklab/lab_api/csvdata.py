"""A lab's data as CSV files: rendered (no header, `\\n` line endings) and read back typed for the reference
(`read_csv`), every problem one line naming the file, the line and the column. Writing a lab's generated CSVs is
the `fixtures` use case (flinklab.usecases.fixtures).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from flinklab.errors import FlinklabError, UsageError
from flinklab.grading.files import MAX_CSV_BYTES, FileReadError, MissingFileError, read_text
from flinklab.grading.values import as_decimal, as_int, clip

DATA_HINT = ("The lab's CSVs come from `flinklab fixtures generate` (`flink-up` provisions them); restore them, or "
             "point --data-dir / FLINKLAB_DATA_DIR at good ones.")

#: A column of a lab CSV: its name and a function that turns the cell's text into a value (ValueError if it
#: cannot, with a message that quotes the cell).
Column = tuple[str, Callable[[str], Any]]


def text_cell(cell: str) -> str:
    """The cell's text as it is."""
    return cell


def decimal_cell(cell: str) -> Any:
    """The cell as a Decimal (ValueError quoting it when it is not a number)."""
    number = as_decimal(cell)
    if number is None:
        raise ValueError(f"{clip(repr(cell))} is not a number")
    return number


def int_cell(cell: str) -> int:
    """The cell as an int (ValueError quoting it when it is not a whole number)."""
    number = as_int(cell)
    if number is None:
        raise ValueError(f"{clip(repr(cell))} is not a whole number")
    return number


def time_cell(parse: Callable[[str], Any], pattern: str = "yyyy-MM-dd HH:mm:ss") -> Callable[[str], Any]:
    """A cell parsed by `parse` (e.g. strptime), refused with a message naming the expected `pattern`."""

    def convert(cell: str) -> Any:
        try:
            return parse(cell.strip())
        except (ValueError, OverflowError):
            raise ValueError(f"{clip(repr(cell))} is not a time ({pattern})") from None

    return convert


def read_csv(path: Path, columns: Sequence[Column]) -> list[tuple]:
    """The rows of a headerless lab CSV, each converted by `columns` (blank lines skipped). FlinklabError, one line
    naming the file and line, for anything unreadable: OS and encoding errors, a wrong number of values, a value
    of the wrong type, a cell over the csv module's size limit."""
    try:
        text = read_text(path, limit=MAX_CSV_BYTES)
    except MissingFileError:
        raise UsageError(f"The lab data {path} does not exist.", DATA_HINT) from None
    except FileReadError as exc:
        exc.hint = exc.hint or DATA_HINT
        raise
    rows: list[tuple] = []
    reader = csv.reader(io.StringIO(text))
    try:
        for row in reader:
            if not row or not "".join(row).strip():
                continue
            if len(row) != len(columns):
                names = ", ".join(name for name, _ in columns)
                raise FlinklabError(f"{path} line {reader.line_num}: {len(row)} values, expected {len(columns)} "
                                    f"({names}).", DATA_HINT)
            values = []
            for (name, convert), cell in zip(columns, row, strict=False):
                try:
                    values.append(convert(cell))
                except ValueError as exc:
                    raise FlinklabError(f"{path} line {reader.line_num}, column {name}: {exc}.", DATA_HINT) from None
            rows.append(tuple(values))
    except csv.Error as exc:
        raise FlinklabError(f"{path} line {reader.line_num}: not CSV ({exc}).", DATA_HINT) from None
    return rows


def render_csv(rows: list[tuple[str, ...]]) -> str:
    """The rows as CSV text: no header, `\\n` line endings (byte-identical for the same rows)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerows(rows)
    return buffer.getvalue()
