"""The changelog behind the result views: folded into a table (table mode) or kept as its last changes
(changelog mode), as Flink's MaterializedCollectStreamResult and ChangelogCollectStreamResult keep them.

Fed with the (kind, cells) rows of the result pages the tableau prints; read by the views as snapshots. Both are
safe to feed from the fetching thread while the view thread reads them.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Sequence

#: Flink's `sql-client.execution.max-table-result.rows` default.
DEFAULT_MAX_ROWS = 1_000_000
#: The changelog view keeps this many changes (Flink's CliChangelogResultView.DEFAULT_MAX_ROW_COUNT).
CHANGELOG_ROWS = 1000

Row = tuple[str, ...]
_RETRACT = ("-U", "-D", "UPDATE_BEFORE", "DELETE")


class TableFold:
    """A changelog folded into the table it describes: `+I`/`+U` add a row, `-U`/`-D` remove the latest equal row.
    Rows keep their arrival order; beyond `max_rows` the oldest rows are dropped (Flink does the same)."""

    def __init__(self, max_rows: int = DEFAULT_MAX_ROWS):
        self.max_rows = max(1, max_rows)
        self._rows: dict[int, Row] = {}  # arrival number -> row, in arrival order
        self._where: dict[Row, deque[int]] = {}  # row -> its arrival numbers, oldest first
        self._next = 0
        self._lock = threading.Lock()
        self.changes = 0  # every change applied, for "has anything changed since the last snapshot"

    def __len__(self) -> int:
        return len(self._rows)

    def apply(self, changes: Iterable[tuple[str, Sequence[str]]]) -> None:
        with self._lock:
            for kind, cells in changes:
                row = tuple(cells)
                self.changes += 1
                if kind in _RETRACT:
                    numbers = self._where.get(row)
                    if numbers:
                        del self._rows[numbers.pop()]
                        if not numbers:
                            del self._where[row]
                    continue
                self._rows[self._next] = row
                self._where.setdefault(row, deque()).append(self._next)
                self._next += 1
                if len(self._rows) > self.max_rows:
                    self._drop_oldest()

    def _drop_oldest(self) -> None:
        number = next(iter(self._rows))
        row = self._rows.pop(number)
        numbers = self._where[row]
        numbers.popleft()
        if not numbers:
            del self._where[row]

    def snapshot(self) -> list[Row]:
        """The table now, in arrival order."""
        with self._lock:
            return list(self._rows.values())


class ChangelogTail:
    """The last `limit` changes, each (op, cells) with op as Flink prints it (`+I`, `-U`, `+U`, `-D`)."""

    def __init__(self, limit: int = CHANGELOG_ROWS):
        self._changes: deque[tuple[str, Row]] = deque(maxlen=limit)
        self._lock = threading.Lock()
        self.changes = 0

    def __len__(self) -> int:
        return len(self._changes)

    def apply(self, changes: Iterable[tuple[str, Sequence[str]]]) -> None:
        with self._lock:
            for kind, cells in changes:
                self._changes.append((kind, tuple(cells)))
                self.changes += 1

    def snapshot(self) -> list[Row]:
        """The kept changes, oldest first, the op as the first cell."""
        with self._lock:
            return [(kind, *cells) for kind, cells in self._changes]


def page_count(rows: int, page_size: int) -> int:
    """Pages of `page_size` rows needed for `rows` (at least one, as Flink shows `Page: 1 of 1` when empty)."""
    page_size = max(1, page_size)
    return max(1, -(-rows // page_size))


def page_of(rows: Sequence[Row], page: int, page_size: int) -> list[Row]:
    """Page `page` (1-based) of `rows`."""
    page_size = max(1, page_size)
    start = (page - 1) * page_size
    return list(rows[start: start + page_size])
