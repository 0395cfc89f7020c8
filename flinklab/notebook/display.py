"""The live displays of `%%flink` (Zeppelin's three display types, and the plain table of a bounded query): renderers
over the same changelog fold the shell's views use, drawn into one display handle, redrawn in place.

`append` keeps the last changes with their row kind (the shell's changelog view: ChangelogTail); `update` and
`table` fold the changelog into the table it describes (the shell's table view: TableFold); `single` shows the
first value of the folded table's latest row, large. Beyond `max_rows` the oldest rows are dropped, with a note.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flinklab.dbapi.values import converters
from flinklab.sqlclient import tableau
from flinklab.sqlclient.shell.fold import ChangelogTail, TableFold

DISPLAYS = ("append", "update", "single", "table")
ROW_KIND = "op"


class CountingFold(TableFold):
    """The shell's table fold, counting the rows it dropped beyond `max_rows` (for the display's note)."""

    def __init__(self, max_rows: int):
        super().__init__(max_rows)
        self.dropped = 0

    def _drop_oldest(self) -> None:
        self.dropped += 1
        super()._drop_oldest()


class LastChanges(ChangelogTail):
    """The shell's changelog tail, knowing its limit (for the display's note)."""

    def __init__(self, max_rows: int):
        super().__init__(max_rows)
        self.max_rows = max_rows


def make_store(display: str, max_rows: int) -> CountingFold | LastChanges:
    """The fold a display reads: the last changes for `append`, the folded table for the others."""
    return LastChanges(max_rows) if display == "append" else CountingFold(max_rows)


@dataclass
class View:
    """What one display shows of a query's result: its columns (Flink's JSON), the store its pages feed."""

    display: str
    columns: list[Mapping[str, Any]]
    store: CountingFold | LastChanges
    names: list[str] = field(init=False)

    def __post_init__(self) -> None:
        names = [str(c["name"]) for c in self.columns]
        self.names = [ROW_KIND, *names] if self.display == "append" else names

    @property
    def dropped(self) -> int:
        if isinstance(self.store, LastChanges):
            return max(0, self.store.changes - len(self.store))
        return self.store.dropped

    def rows(self) -> list[tuple[str, ...]]:
        return self.store.snapshot()

    def bundle(self, status: str) -> dict[str, str]:
        """The display's MIME bundle now (text/html for a notebook, text/plain for everything else)."""
        rows = self.rows()
        note = self.note()
        if self.display == "single":
            value = rows[-1][0] if rows else ""
            name = self.names[0] if self.names else ""
            plain = f"{name}: {value}\n{status}"
            body = (f'<div style="font-size:2.6em;font-weight:600;line-height:1.2">{html.escape(value)}</div>'
                    f'<div style="color:#666">{html.escape(name)}</div>')
            return {"text/plain": plain, "text/html": body + _status_html(status, note)}
        lines = tableau.render_batch(self.names, rows) if rows else []
        plain = "\n".join([*lines[:-1], *([note] if note else []), status])
        return {"text/plain": plain, "text/html": _table_html(self.names, rows) + _status_html(status, note)}

    def note(self) -> str:
        """The visible note on rows dropped beyond `--max-rows` ('' when none was)."""
        return f"(the oldest {self.dropped} rows were dropped: --max-rows keeps {self.store.max_rows})" \
            if self.dropped else ""

    def frame(self) -> Any:
        """The result as a pandas DataFrame, with Python values read by column type (`op` first for append)."""
        import pandas as pd

        convert = converters(self.columns)
        if self.display == "append":
            convert = [str, *convert]
        data = [[None if cell == tableau.NULL_VALUE else fn(cell) for cell, fn in zip(row, convert, strict=True)]
                for row in self.rows()]
        return pd.DataFrame(data, columns=self.names)


def _status_html(status: str, note: str) -> str:
    text = html.escape(status) + (f" <em>{html.escape(note)}</em>" if note else "")
    return f'<div style="color:#555;font-size:0.9em;margin-top:4px">{text}</div>'


def _table_html(names: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{html.escape(n)}</th>" for n in names)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="flinklab-result"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


class LiveDisplay:
    """One display handle, redrawn in place: a redraw happens only when the store changed (or the status did),
    so all the changes between two redraws are drawn once."""

    def __init__(self, view: View, show: Callable[..., Any]):
        self.view = view
        self._show = show  # IPython.display.display
        self._handle: Any = None
        self._drawn: tuple[int, str] | None = None
        self.redraws = 0

    def draw(self, status: str) -> None:
        state = (self.view.store.changes, status)
        if state == self._drawn:
            return
        self._drawn = state
        bundle = self.view.bundle(status)
        if self._handle is None:
            self._handle = self._show(bundle, raw=True, display_id=True)
        else:
            self._handle.update(bundle, raw=True)
        self.redraws += 1

    def fail(self, status: str) -> None:
        """The query failed (its `[ERROR]` follows the display): the progress line must not stay. The rows received
        before the failure stay, under `status`; with none, the display is emptied."""
        if self.view.store.changes:
            self.draw(status)
        elif self._handle is not None:
            self._handle.update({"text/plain": ""}, raw=True)
            self._drawn = None

    def collapse(self, status: str) -> None:
        """Replace the table by its status line (the cell's value shows the table)."""
        note = self.view.note()
        bundle = {"text/plain": f"{status} {note}".strip(), "text/html": _status_html(status, note)}
        if self._handle is None:
            self._handle = self._show(bundle, raw=True, display_id=True)
        else:
            self._handle.update(bundle, raw=True)


def status_line(count: int, *, finished: bool, streaming: bool, shown: int) -> str:
    """`Received a total of N rows` (as the tableau ends), with how many are shown while it runs."""
    if finished:
        return tableau.streaming_footer(count) if streaming else tableau.batch_footer(count)
    return f"Running: received {count} {'row' if count == 1 else 'rows'} so far, showing {shown}"


def failed_line(count: int) -> str:
    """The status under the rows a query received before it failed (its `[ERROR]` is printed below)."""
    return f"Failed after {count} {'row' if count == 1 else 'rows'}: the error is below"
