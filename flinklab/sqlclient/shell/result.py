"""A query's result as the shell's views read it: its columns and the two stores its pages feed.

Both stores are fed from the same changes (the executor's fetching thread), so a view can show the result folded
into a table or as its changelog, and the learner can switch between the two without running the query again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from flinklab.sqlclient import tableau
from flinklab.sqlclient.shell.fold import DEFAULT_MAX_ROWS, ChangelogTail, TableFold

if TYPE_CHECKING:
    from flinklab.sqlclient.shell.gateway import ShellApi


@dataclass
class QueryResult:
    """A query's result as a view reads it: its columns, the stores its pages feed, and how the feeding went."""

    columns: list[tableau.ColumnType]
    types: list[str]  # each column's type as Flink prints it in the Row Summary (INT, STRING, TIMESTAMP(3) ...)
    max_width: int
    table: TableFold = field(default_factory=lambda: TableFold(DEFAULT_MAX_ROWS))  # the folded result
    changelog: ChangelogTail = field(default_factory=ChangelogTail)  # its last changes
    finished: bool = False  # the result reached its end (EOS): a bounded query done
    error: str | None = None  # the reason a fetch failed (a failed job)
    gone: bool = False  # the gateway stopped answering while the view was open
    fetcher: ShellApi | None = None  # the client fetching its pages (aborted when the view closes)

    def apply(self, changes: Iterable[tuple[str, Sequence[str]]]) -> None:
        """Feed one page's (op, cells) changes to both stores."""
        changes = list(changes)
        self.table.apply(changes)
        self.changelog.apply(changes)

    @property
    def ended(self) -> bool:
        """No more changes will come: the result is complete, failed, or its gateway is gone."""
        return self.finished or self.error is not None or self.gone
