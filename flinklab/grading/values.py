"""Compare printed cells with values a reference computed: numbers with a tolerance, timestamps exactly, row sets
ignoring order, and a short description of a set difference for a failure message.

Printed cells are strings (`14.00`, `2024-01-01 10:00:00.000`, `TRUE`, None for `<NULL>`); expected values may be
Python numbers, `Decimal`, `datetime`, `bool`, strings or None.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

#: Default absolute tolerance: Flink rounds DECIMAL results to the column's scale; the reference does not.
DEFAULT_TOLERANCE = Decimal("0.01")

#: The longest text read as a number, and the largest decimal exponent: Flink's DECIMAL holds at most 38 digits,
#: and converting a longer number (a 10 MB run of digits in a cell, or `1e999999999`) to int would take quadratic
#: time or unbounded memory. Longer texts are simply not numbers.
MAX_NUMBER_CHARS = 100
MAX_EXPONENT = 100
#: How much of a found value a message quotes.
MAX_SHOWN_CHARS = 80

_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_TIMESTAMP = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?$")

Row = Sequence[Any]


def _bounded(number: Decimal, *, count_digits: bool = True) -> Decimal | None:
    """The number when it is finite and of a size a lab can print; None otherwise (NaN, Infinity, 1e999999, or
    more than MAX_NUMBER_CHARS digits, which a text cell's length already rules out)."""
    if not number.is_finite() or abs(number.adjusted()) > MAX_EXPONENT:
        return None
    if count_digits and len(number.as_tuple().digits) > MAX_NUMBER_CHARS:
        return None
    return number


def as_decimal(value: Any) -> Decimal | None:
    """A finite number of bounded size as Decimal (`"14.00"`, `14`, `Decimal`); None for None, booleans, NaN and
    infinities, and anything not a number."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, Decimal):
        return _bounded(value)
    if isinstance(value, int):
        return _bounded(Decimal(value)) if abs(value).bit_length() <= 4 * MAX_NUMBER_CHARS else None
    if isinstance(value, float):
        return _bounded(Decimal(repr(value))) if value == value and abs(value) != float("inf") else None
    text = str(value)
    if len(text) > MAX_NUMBER_CHARS + 10:  # cheap refusal before stripping a huge cell
        return None
    return _decimal_of_text(text)


@functools.lru_cache(maxsize=1 << 16)
def _decimal_of_text(text: str) -> Decimal | None:
    """A printed cell as a number (cached: a changelog repeats its values many times)."""
    text = text.strip().strip('"')
    if not _NUMBER.match(text):
        return None
    try:
        return _bounded(Decimal(text), count_digits=False)
    except InvalidOperation:  # pragma: no cover - the regex admits only valid literals
        return None


def as_int(value: Any) -> int | None:
    """A whole number (`"7"`, `7`, `"7.00"`); None otherwise."""
    number = as_decimal(value)
    if number is None or number != number.to_integral_value():
        return None
    return int(number)


def as_timestamp(value: Any) -> datetime | None:
    """`yyyy-MM-dd[ HH:mm[:ss[.fff]]]` (also with `T`, or quoted as a CSV sink writes it) as a naive datetime."""
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if not isinstance(value, str):
        return None
    match = _TIMESTAMP.match(value.strip().strip('"'))
    if not match:
        return None
    y, mo, d, h, mi, s, frac = match.groups()
    micros = int((frac or "0").ljust(9, "0")[:6])
    try:
        return datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0), micros)
    except ValueError:
        return None


def numbers_close(a: Any, b: Any, tolerance: Decimal | float | str = DEFAULT_TOLERANCE) -> bool:
    """Both are numbers and differ by at most `tolerance` (absolute)."""
    x, y = as_decimal(a), as_decimal(b)
    if x is None or y is None:
        return False
    return abs(x - y) <= Decimal(str(tolerance))


def canonical(value: Any) -> tuple:
    """A hashable form for exact matching: numbers by value (14.00 == 14), timestamps by instant, TRUE == True."""
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("bool", value)
    number = as_decimal(value)
    if number is not None:
        return ("num", number.normalize() if number else Decimal(0))
    stamp = as_timestamp(value)
    if stamp is not None:
        return ("ts", stamp)
    text = str(value).strip()
    if text.upper() in ("TRUE", "FALSE"):
        return ("bool", text.upper() == "TRUE")
    return ("str", text)


def cells_match(expected: Any, found: Any, tolerance: Decimal | float | str = DEFAULT_TOLERANCE) -> bool:
    """One cell: numbers within the tolerance, everything else by canonical value."""
    left, right = canonical(expected), canonical(found)
    if left[0] == "num" and right[0] == "num":
        return abs(left[1] - right[1]) <= Decimal(str(tolerance))
    return left == right


def rows_match(expected: Row, found: Row, tolerance: Decimal | float | str = DEFAULT_TOLERANCE) -> bool:
    return len(expected) == len(found) and all(
        cells_match(e, f, tolerance) for e, f in zip(expected, found, strict=True))


def clip(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """`text` shortened for a message: a huge cell is quoted by its start and its length."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def format_value(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, datetime):
        return value.isoformat(sep=" ", timespec="milliseconds" if value.microsecond else "seconds")
    if isinstance(value, Decimal):
        bounded = _bounded(value)
        return format(bounded, "f") if bounded is not None else clip(str(value))
    return clip(str(value))


def format_row(row: Row) -> str:
    return "(" + ", ".join(format_value(v) for v in row) + ")"


@dataclass
class RowDiff:
    """What a found row set lacks and what it has too much of (multisets, order ignored)."""

    missing: list[tuple] = field(default_factory=list)  # expected rows not found
    unexpected: list[tuple] = field(default_factory=list)  # found rows nobody expected
    matched: int = 0

    @property
    def ok(self) -> bool:
        return not self.missing and not self.unexpected

    def describe(self, examples: int = 3) -> str:
        return describe_difference(self.missing, self.unexpected, examples=examples)


def _as_tuple(row: Row | Mapping[str, Any], columns: Sequence[str] | None) -> tuple:
    if isinstance(row, Mapping):
        if columns is None:
            raise ValueError("rows given as dicts need `columns` to say which values to compare")
        return tuple(row.get(c) for c in columns)
    return tuple(row)


def compare_rows(
    expected: Iterable[Row | Mapping[str, Any]],
    found: Iterable[Row | Mapping[str, Any]],
    *,
    columns: Sequence[str] | None = None,
    tolerance: Decimal | float | str = DEFAULT_TOLERANCE,
) -> RowDiff:
    """Compare two row multisets ignoring order; rows are sequences, or dicts read in `columns` order."""
    want = [_as_tuple(r, columns) for r in expected]
    have = [_as_tuple(r, columns) for r in found]
    # Exact matches first (by canonical value, one pass each side), then pair the rest within the tolerance among
    # rows that agree on every cell that is not a number: linear in the rows, where trying every pair of the
    # rests was quadratic (a wrong 10k-row answer compared with a 10k-row reference took minutes).
    have_keys = [tuple(canonical(v) for v in r) for r in have]
    unmatched = Counter(have_keys)
    rest_want: list[tuple[tuple, tuple]] = []
    matched = 0
    for row in want:
        key = tuple(canonical(v) for v in row)
        if unmatched[key] > 0:
            unmatched[key] -= 1
            matched += 1
        else:
            rest_want.append((row, key))
    candidates: dict[tuple, list[int]] = {}  # shape -> indexes into rest_have
    rest_have: list[tuple] = []
    for row, key in zip(have, have_keys, strict=False):
        if unmatched[key] > 0:
            unmatched[key] -= 1
            candidates.setdefault(_shape(key), []).append(len(rest_have))
            rest_have.append(row)
    missing: list[tuple] = []
    paired: set[int] = set()
    for row, key in rest_want:
        group = candidates.get(_shape(key), [])
        for pos, idx in enumerate(group):
            if rows_match(row, rest_have[idx], tolerance):
                paired.add(group.pop(pos))
                matched += 1
                break
        else:
            missing.append(row)
    unexpected = [row for idx, row in enumerate(rest_have) if idx not in paired]
    return RowDiff(missing=missing, unexpected=unexpected, matched=matched)


def _shape(key: tuple) -> tuple:
    """A canonical row with its numbers blanked: rows that can match within a tolerance share it."""
    return tuple(("num",) if cell[0] == "num" else cell for cell in key)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def describe_difference(missing: Sequence[Row], unexpected: Sequence[Row], *, examples: int = 3) -> str:
    """`missing 3 rows, e.g. (o1, s1, 0), ...; unexpected 1 row, e.g. (o9, s9, 7201)`; "" when both are empty."""
    parts = []
    for label, rows in (("missing", missing), ("unexpected", unexpected)):
        if not rows:
            continue
        shown = ", ".join(format_row(r) for r in list(rows)[:examples])
        more = ", ..." if len(rows) > examples else ""
        parts.append(f"{label} {_plural(len(rows), 'row')}, e.g. {shown}{more}")
    return "; ".join(parts)
