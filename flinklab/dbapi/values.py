"""Flink's result cells as Python values, from the PLAIN_TEXT row format and each column's logical type.

PLAIN_TEXT is what the shell prints (`2024-01-01 10:00:00.000`, `12.50`, `TRUE`); read with the column's type it
gives exact values (a DECIMAL stays a Decimal, which JSON numbers would not). Types without a natural Python value
(ARRAY, MAP, ROW, MULTISET, RAW, ...) stay the text Flink prints.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from flinklab.sqlclient.shell.executor import type_text

# PEP 249's type objects compare equal to every Flink type root of their kind (description[i][1] == NUMBER).


class DBAPITypeObject:
    """A PEP 249 type object: equal to each Flink type (as `description` gives it) of its group."""

    def __init__(self, *roots: str):
        self.roots = frozenset(roots)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return other.split("(")[0].split(" ")[0].upper() in self.roots
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.roots)


STRING = DBAPITypeObject("STRING", "VARCHAR", "CHAR")
BINARY = DBAPITypeObject("BYTES", "BINARY", "VARBINARY")
NUMBER = DBAPITypeObject("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL")
DATETIME = DBAPITypeObject("DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ")
ROWID = DBAPITypeObject()


def _timestamp(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.strip().replace(" ", "T", 1))


_CONVERTERS: dict[str, Callable[[str], Any]] = {
    "TINYINT": int, "SMALLINT": int, "INTEGER": int, "BIGINT": int,
    "FLOAT": float, "DOUBLE": float, "DECIMAL": Decimal,
    "BOOLEAN": lambda text: text.strip().upper() == "TRUE",
    "DATE": dt.date.fromisoformat, "TIME_WITHOUT_TIME_ZONE": dt.time.fromisoformat,
    "TIMESTAMP_WITHOUT_TIME_ZONE": _timestamp, "TIMESTAMP_WITH_LOCAL_TIME_ZONE": _timestamp,
}


def converters(columns: Sequence[Mapping[str, Any]]) -> list[Callable[[str], Any]]:
    """One converter per result column: its PLAIN_TEXT cell to a Python value (the text itself when there is no
    natural one, or when Flink printed something the converter does not read)."""
    return [_safe(_CONVERTERS.get(str((c.get("logicalType") or {}).get("type")), str)) for c in columns]


def _safe(convert: Callable[[str], Any]) -> Callable[[str], Any]:
    def run(text: str) -> Any:
        try:
            return convert(text)
        except (ValueError, ArithmeticError):
            return text
    return run


def convert_row(fields: Sequence[Any], convert: Sequence[Callable[[str], Any]]) -> tuple[Any, ...]:
    """A PLAIN_TEXT row (None for SQL NULL) as Python values."""
    return tuple(None if cell is None else fn(str(cell)) for cell, fn in zip(fields, convert, strict=True))


def describe(column: Mapping[str, Any]) -> tuple[Any, ...]:
    """PEP 249's seven-item column description: name, Flink's type as it prints it, display size, internal size,
    precision, scale, null_ok."""
    logical = column.get("logicalType") or {}
    return (str(column.get("name")), type_text(column), None, logical.get("length"), logical.get("precision"),
            logical.get("scale"), logical.get("nullable", True))
