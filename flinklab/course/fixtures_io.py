"""A lab's data as CSV files: written (no header, `\\n` line endings, deterministic for a seed and scale) and read
back typed for the reference (`read_csv`), every problem one line naming the file, the line and the column.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from flinklab.course.lab import Lab
from flinklab.errors import FlinklabError, UsageError
from flinklab.grading.files import MAX_CSV_BYTES, FileReadError, MissingFileError, read_text
from flinklab.grading.values import as_decimal, as_int, clip

#: The largest --scale: each unit is about 120 orders (and their users, shipments, rates) per lab, so 1000 is
#: already some 500k rows in memory at once; beyond it the generator would only exhaust memory.
MAX_SCALE = 1000
DATA_HINT = ("The lab's CSVs come from `flinklab fixtures generate` (`flink-up` provisions them); restore them, or "
             "point --data-dir / FLINKLAB_DATA_DIR at good ones.")

#: A column of a lab CSV: its name and a function that turns the cell's text into a value (ValueError if it
#: cannot, with a message that quotes the cell).
Column = tuple[str, Callable[[str], Any]]


def text_cell(cell: str) -> str:
    return cell


def decimal_cell(cell: str) -> Any:
    number = as_decimal(cell)
    if number is None:
        raise ValueError(f"{clip(repr(cell))} is not a number")
    return number


def int_cell(cell: str) -> int:
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
            for (name, convert), cell in zip(columns, row):
                try:
                    values.append(convert(cell))
                except ValueError as exc:
                    raise FlinklabError(f"{path} line {reader.line_num}, column {name}: {exc}.", DATA_HINT) from None
            rows.append(tuple(values))
    except csv.Error as exc:
        raise FlinklabError(f"{path} line {reader.line_num}: not CSV ({exc}).", DATA_HINT) from None
    return rows


def render_csv(rows: list[tuple[str, ...]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerows(rows)
    return buffer.getvalue()


def write_fixtures(lab: Lab, out_dir: Path | None, seed: int | None = None, scale: int = 1) -> list[Path]:
    """Generate the lab's CSVs into `out_dir` (None: the lab package's data/ folder, the committed CSVs) and return
    their paths; files are written whole, via a temporary name."""
    if scale < 1:
        raise UsageError(f"--scale must be 1 or more, not {scale}.")
    if scale > MAX_SCALE:
        raise UsageError(f"--scale must be at most {MAX_SCALE}, not {scale}.",
                         f"Each unit is a day (joins) or two hours (windows) of data; {MAX_SCALE} is the most "
                         "the generator makes in memory.")
    out_dir = lab.data_dir if out_dir is None else out_dir
    seed = lab.fixtures.default_seed if seed is None else seed
    generated = lab.fixtures.generate(seed, scale)
    missing = [name for name in lab.fixtures.files if name not in generated]
    if missing:
        raise FlinklabError(
            f"The {lab.name} generator produced no {', '.join(missing)}.", "This is a bug in the lab."
        )
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(
            f"Cannot create {out_dir}: {exc.strerror or exc}.", "Choose another with --out."
        ) from None
    written = []
    for name in lab.fixtures.files:
        path = out_dir / name
        tmp = path.with_name(f".{name}.tmp")
        try:
            tmp.write_bytes(render_csv(generated[name]).encode("utf-8"))
            tmp.replace(path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise UsageError(f"Cannot write {path}: {exc.strerror or exc}.", "Choose another dir with --out.") from None
        written.append(path)
    return written
