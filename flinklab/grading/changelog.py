"""Fold a printed changelog into the rows that remain at its end.

`final_rows` treats the table as a multiset: `+I`/`+U` add a row, `-U`/`-D` remove the most recent equal row (a
retraction of a row never added is ignored); a batch table (no op column) is already final. `fold_by_key` keeps
one row per key: the last `+I`/`+U` wins, `-D` removes the key, `-U` is ignored (the labs' "the last +I/+U is the
final value").
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

from flinklab.errors import FlinklabError
from flinklab.grading.parse import ResultTable

_ADD = ("+I", "+U")
_REMOVE = ("-U", "-D")


class MissingColumnError(FlinklabError, KeyError):
    """A key column the caller asked for is not in the printed table (a KeyError too, for callers that skip a
    field whose column is missing)."""

    def __init__(self, column: str, columns: Sequence[str]):
        self.column = column
        self.columns = list(columns)
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"the output has no column {self.column!r} (columns: {', '.join(self.columns) or 'none'})"


def _ops(table: ResultTable) -> list[str]:
    # A batch table prints final rows only: treat each as an insert.
    return table.ops if table.ops is not None else ["+I"] * len(table.rows)


def final_rows(table: ResultTable) -> list[dict[str, str | None]]:
    """The rows that remain after applying the changelog, in the order they were (last) added."""
    if table.ops is None:
        return table.records()
    # One pass: rows alive by sequence number (a dict keeps insertion order), and for each distinct row the stack
    # of its alive sequence numbers, so a retraction finds the most recent equal row without a scan.
    alive: dict[int, tuple] = {}
    positions: dict[tuple, list[int]] = {}
    for seq, (op, row) in enumerate(zip(table.ops, table.rows, strict=False)):
        values = tuple(row)
        if op in _ADD:
            alive[seq] = values
            positions.setdefault(values, []).append(seq)
        elif op in _REMOVE:
            stack = positions.get(values)
            if stack:  # a retraction of a row never seen is ignored
                del alive[stack.pop()]
    return [dict(zip(table.columns, values, strict=False)) for values in alive.values()]


def fold_by_key(table: ResultTable, key: Sequence[str]) -> dict[tuple, dict[str, str | None]]:
    """Final row per key: the last +I/+U wins, -D removes the key, -U is ignored."""
    if isinstance(key, str):
        key = (key,)
    for column in key:
        if column not in table.columns:
            raise MissingColumnError(column, table.columns)
    index = [table.columns.index(column) for column in key]
    pick = itemgetter(*index)
    single = len(index) == 1
    last: dict[tuple, list] = {}  # rows, not dicts: only the survivors become dicts
    for op, row in zip(_ops(table), table.rows, strict=False):
        k = (pick(row),) if single else pick(row)
        if op in _ADD:
            last.pop(k, None)  # re-insert so dict order = order of the last update
            last[k] = row
        elif op == "-D":
            last.pop(k, None)
    return {k: dict(zip(table.columns, row, strict=False)) for k, row in last.items()}
