"""What every result view has (Flink's CliResultView): a result it reads, a selected row, scrolling, a refresh
interval, the Row Summary of an opened row, and a key table mapping keys to operations.

A view holds no terminal: `press` moves it, `refresh` takes a snapshot of its store, `lines` lays it out for a
width and height. views/screen.py puts the current view on a terminal. The subclasses (table.py, changelog.py)
say which store they read, how a snapshot becomes the rows shown, and their own keys.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import ClassVar

from prompt_toolkit.keys import Keys

from flinklab.sqlclient import tableau
from flinklab.sqlclient.shell.fold import ChangelogTail, Row, TableFold
from flinklab.sqlclient.shell.result import QueryResult
from flinklab.sqlclient.shell.views import frame

Fragments = list[tuple[str, str]]
Key = str  # a character or a prompt_toolkit Keys value

#: Flink's bindings shared by both views (CliTableResultView / CliChangelogResultView .getKeys).
COMMON_KEYS: dict[str, set[Key]] = {
    "quit": {"q", "Q", Keys.Escape, Keys.ControlC},
    "refresh": {"r", "R", Keys.F5},
    "up": {"w", "W", Keys.Up},
    "down": {"s", "S", Keys.Down},
    "left": {"a", "A", Keys.Left},
    "right": {"d", "D", Keys.Right},
    "open": {"o", "O", Keys.ControlM},
    "inc": {"+"},
    "dec": {"-"},
}
#: flinklab's own keys, in both views (Flink's client has neither).
OWN_KEYS: dict[str, set[Key]] = {
    "toggle": {"t", "T"},  # the same result in the other view (table <-> changelog), nothing rerun
    "pause": {" "},  # stop and resume the automatic refresh (the result is still fetched)
}
PAUSE_HELP = ("Space", "Pause")  # the footer's label (T's names the other view: views/table.py, changelog.py)


class ResultView:
    """One result view's state and keys. Subclasses set the class attributes and `store`/`show`."""

    MODE: ClassVar[str]  # the title's `(Table)` / `(Changelog)`
    KEYS: ClassVar[dict[str, set[Key]]]  # operation -> keys
    HELP: ClassVar[list[tuple[str, str]]]  # the footer's key labels
    REFRESH: ClassVar[int]  # index into frame.REFRESH_INTERVALS at the start
    MIN_REFRESH: ClassVar[int]  # the fastest `-` goes

    def __init__(self, result: QueryResult, size: Callable[[], tuple[int, int]] | None = None):
        self.result = result
        self._size = size or (lambda: (80, 24))
        self.names = [c.name for c in result.columns]  # the result's fields (the Row Summary lists these)
        self.types = list(result.types)
        self.widths = tableau.column_widths_by_type(result.columns, result.max_width)
        self.interval = self.REFRESH
        self.rows: list[Row] = []
        self.previous: list[Row] | None = None  # the rows of the last refresh, to mark what changed in bold
        self.selected = -1
        self.offset_x = 0
        self.offset_y = 0
        self.moment: datetime | None = None
        self.mode = "main"  # main | row (| goto in the table view)
        self.row_offset = 0
        self.retrieving = True
        self.paused = False
        self.redraw_seconds = 0.0  # the last refresh's cost (snapshot and page), for the bench
        self.poke = False  # refresh now (the interval got shorter)
        self.leaving = False  # q pressed
        self.switching = False  # t pressed: the screen shows the other view

    # ---- what a subclass says ---------------------------------------------------------------------------

    def store(self) -> TableFold | ChangelogTail:
        """The store this view reads."""
        raise NotImplementedError

    def show(self, snapshot: list[Row]) -> None:
        """Set `rows` (and `previous`) from a snapshot of the store."""
        raise NotImplementedError

    def header(self) -> list[str]:
        """The column header's names."""
        return self.names

    def cell_widths(self) -> list[int]:
        return self.widths

    def fields(self, row: Row) -> Row:
        """The result's fields in a shown row (Flink's getRow)."""
        return row

    def status_middle(self) -> str:
        return ""

    # ---- size -------------------------------------------------------------------------------------------

    def size(self) -> tuple[int, int]:
        """(columns, rows) of the terminal."""
        return self._size()

    def visible_rows(self) -> int:
        return max(1, self.size()[1] - frame.CHROME_LINES)

    def line_width(self) -> int:
        return sum(1 + w for w in self.cell_widths())

    # ---- refreshing -------------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Take a snapshot of the store and recompute what is shown (Flink's refresh)."""
        started = time.perf_counter()
        if self.result.ended:
            self.retrieving = False
        self.show(self.store().snapshot())
        if self.selected >= len(self.rows):
            self.selected = -1
        self.moment = datetime.now()
        self.redraw_seconds = time.perf_counter() - started

    # ---- keys -------------------------------------------------------------------------------------------

    def press(self, key: Key) -> None:
        """Act on one key."""
        if self.mode == "row":
            if key in COMMON_KEYS["quit"]:
                self.mode = "main"
            elif key in COMMON_KEYS["down"]:
                self.row_offset += 1
            elif key in COMMON_KEYS["up"]:
                self.row_offset = max(0, self.row_offset - 1)
            return
        if self.mode != "main":
            self.dialog_key(key)
            return
        operation = next((op for op, keys in self.KEYS.items() if key in keys), None)
        if operation is not None:
            getattr(self, "_" + operation)()

    def dialog_key(self, key: Key) -> None:
        """A key in a mode of the subclass's own (the table view's goto dialog)."""

    def _quit(self) -> None:
        self.leaving = True

    def _refresh(self) -> None:
        self.refresh()

    def _toggle(self) -> None:
        self.switching = True

    def _pause(self) -> None:
        self.paused = not self.paused
        self.poke = not self.paused  # resumed: show what came meanwhile at once

    def _inc(self) -> None:
        self.interval = min(len(frame.REFRESH_INTERVALS) - 1, self.interval + 1)

    def _dec(self) -> None:
        self.interval = max(self.MIN_REFRESH, self.interval - 1)
        self.poke = True

    def _up(self) -> None:
        if self.selected == -1:
            if self.rows:
                self.selected = min(len(self.rows), self.offset_y + self.visible_rows()) - 1
        elif self.selected > self.offset_y:
            self.selected -= 1
        else:
            self.selected = max(0, self.selected - 1)
            self.offset_y = max(0, self.offset_y - 1)

    def _down(self) -> None:
        bottom = min(len(self.rows), self.offset_y + self.visible_rows()) - 1
        if self.selected == -1:
            self.selected = self.offset_y if self.rows else -1
        elif self.selected < bottom:
            self.selected += 1
        else:
            self.selected = min(max(0, len(self.rows) - 1), self.selected + 1)
            if self.selected >= self.offset_y + self.visible_rows():
                self.offset_y += 1

    def _left(self) -> None:
        self.offset_x = max(0, self.offset_x - 1)

    def _right(self) -> None:
        self.offset_x = min(max(0, self.line_width() - self.size()[0]), self.offset_x + 1)

    def _open(self) -> None:
        if self.selected != -1:
            self.mode, self.row_offset = "row", 0

    # ---- drawing ----------------------------------------------------------------------------------------

    def title(self) -> str:
        return f"{frame.TITLE} ({self.MODE})"

    def fragments(self, width: int, height: int) -> Fragments:
        """The whole screen as prompt_toolkit fragments."""
        small = frame.too_small(width, height)
        if small is not None:
            return [("", small)]
        out: Fragments = []
        for i, line in enumerate(self.lines(width, height)[:height]):
            if i:
                out.append(("", "\n"))
            out += line
        return out

    def lines(self, width: int, height: int) -> list[Fragments]:
        if self.mode == "row":
            return self._row_lines(width, height)
        return self._main_lines(width, height)

    def _main_lines(self, width: int, height: int) -> list[Fragments]:
        status = frame.status_line(width, self.retrieving, self.interval, self.status_middle(), self.moment,
                                   paused=self.paused)
        lines: list[Fragments] = [[("reverse", frame.centered(self.title(), width))], [("reverse", status)],
                                  [("", "")]]
        header: Fragments = []
        for name, w in zip(self.header(), self.cell_widths()):
            header += [("", " "), ("underline", frame.cell_text(name, w))]
        lines.append(frame.clip(header, self.offset_x, width))
        start = self.offset_y
        for index in range(start, min(len(self.rows), start + height - frame.CHROME_LINES)):
            lines.append(frame.clip(self._row_fragments(index), self.offset_x, width))
        while len(lines) < height - 2:
            lines.append([("", "")])
        return lines + frame.key_lines(width, self.HELP)

    def _row_fragments(self, index: int) -> Fragments:
        previous = self.previous
        before = previous[index] if previous is not None and index < len(previous) else None
        changed = previous is not None and self.retrieving and index != self.selected
        return frame.row_cells(self.rows[index], self.cell_widths(), index == self.selected,
                               before if changed else None, changed)

    def _row_lines(self, width: int, height: int) -> list[Fragments]:
        row = self.fields(self.rows[self.selected]) if 0 <= self.selected < len(self.rows) else ()
        return frame.row_summary_lines(frame.row_summary(self.names, self.types, row), self.row_offset, width,
                                       height)
