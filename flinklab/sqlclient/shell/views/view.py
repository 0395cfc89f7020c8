"""A result view as a prompt_toolkit Application: Flink's table view (the folded result, paged) or its changelog
view (the last changes, with their op), with Flink's keys, the Row Summary and the goto-page dialog.

ViewState holds what the view shows and how Flink's keys move it (no terminal); ResultView puts it on the screen.
The view only reads: the executor's fetching thread fills `result.store`; the view takes a snapshot at its refresh
interval, so a fast-changing result of many rows costs one snapshot per interval, not one redraw per change.
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import Output

from flinklab.sqlclient import tableau
from flinklab.sqlclient.shell.executor import QueryResult
from flinklab.sqlclient.shell.fold import page_count, page_of
from flinklab.sqlclient.shell.views import frame

Fragments = list[tuple[str, str]]
_KEYS = {  # Flink's bindings (CliTableResultView / CliChangelogResultView .getKeys), ours by name
    "quit": {"q", "Q", Keys.Escape, Keys.ControlC},
    "refresh": {"r", "R", Keys.F5},
    "up": {"w", "W", Keys.Up},
    "down": {"s", "S", Keys.Down},
    "left": {"a", "A", Keys.Left},
    "right": {"d", "D", Keys.Right},
    "open": {"o", "O", Keys.ControlM},
    "goto": {"g", "G"},
    "next": {"n", "N"},
    "prev": {"p", "P"},
    "last": {"l", "L", Keys.End},
    "inc": {"+"},
    "dec": {"-"},
}
_CHANGELOG_OPS = {"quit", "refresh", "up", "down", "left", "right", "open", "inc", "dec"}


class ViewState:
    """What a result view shows and how Flink's keys move it: the page, the selected row, the scroll offsets,
    the refresh interval, the mode (main, Row Summary, goto dialog). No terminal here: ResultView draws it."""

    def __init__(self, result: QueryResult, *, changelog: bool):
        self.result = result
        self.changelog = changelog
        names = [c.name for c in result.columns]
        columns = result.columns
        widths = tableau.column_widths_by_type(columns, result.max_width)
        self.names = [tableau.ROW_KIND_COLUMN, *names] if changelog else names
        self.types = ["STRING", *result.types] if changelog else list(result.types)
        self.widths = [len(tableau.ROW_KIND_COLUMN), *widths] if changelog else widths
        self.interval = frame.CHANGELOG_REFRESH if changelog else frame.TABLE_REFRESH
        self.min_interval = frame.CHANGELOG_MIN_REFRESH if changelog else frame.TABLE_MIN_REFRESH
        self.page = 0  # 0: follow the last page (Flink's LAST_PAGE)
        self.pages = 1
        self.rows: list[tuple[str, ...]] = []
        self.previous: list[tuple[str, ...]] | None = None
        self.previous_page = 1
        self.selected = -1
        self.offset_x = 0
        self.offset_y = 0
        self.moment: datetime | None = None
        self.mode = "main"  # main | row | goto
        self.goto_text = ""
        self.goto_error = False
        self.row_offset = 0
        self.retrieving = True
        self.redraw_seconds = 0.0  # the last refresh's cost (snapshot and page), for the bench
        self._poke = False
        self.leaving = False  # q pressed
        self._size = (80, 24)
    # ---- size ---------------------------------------------------------------------------------------------

    def size(self) -> tuple[int, int]:
        """(columns, rows) of the terminal (the Application's output in ResultView)."""
        return self._size

    def visible_rows(self) -> int:
        return max(1, self.size()[1] - frame.CHROME_LINES)

    # ---- refreshing -----------------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Take a snapshot of the result and recompute the page shown (Flink's refresh + updatePage)."""
        started = time.perf_counter()
        if self.result.finished or self.result.error or self.result.gone:
            self.retrieving = False
        snapshot = self.result.store.snapshot()
        if self.changelog:
            self.previous = None
            self.rows = snapshot
            if self.selected == -1:  # follow the newest change
                self.offset_y = max(0, len(self.rows) - self.visible_rows())
        else:
            size = self.visible_rows()
            self.pages = page_count(len(snapshot), size)
            if self.page > self.pages:
                self.page = 0
            shown = self.pages if self.page == 0 else self.page
            page_rows = page_of(snapshot, shown, size)
            self.previous = self.rows if self.previous_page == shown else None
            self.previous_page = shown
            self.rows = page_rows
        if self.selected >= len(self.rows):
            self.selected = -1
        self.moment = datetime.now()
        self.redraw_seconds = time.perf_counter() - started

    # ---- keys ---------------------------------------------------------------------------------------------

    def press(self, key: str) -> None:
        """Act on one key (a character or a prompt_toolkit Keys value)."""
        if self.mode == "row":
            if key in _KEYS["quit"]:
                self.mode = "main"
            elif key in _KEYS["down"]:
                self.row_offset += 1
            elif key in _KEYS["up"]:
                self.row_offset = max(0, self.row_offset - 1)
        elif self.mode == "goto":
            self._goto_key(key)
        else:
            operation = next((op for op, keys in _KEYS.items() if key in keys), None)
            if operation is None or (self.changelog and operation not in _CHANGELOG_OPS):
                return
            getattr(self, "_" + operation)()

    def _quit(self) -> None:
        self.leaving = True

    def _refresh(self) -> None:
        self.refresh()

    def _inc(self) -> None:
        self.interval = min(len(frame.REFRESH_INTERVALS) - 1, self.interval + 1)

    def _dec(self) -> None:
        self.interval = max(self.min_interval, self.interval - 1)
        self._poke = True

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

    def _goto(self) -> None:
        self.mode, self.goto_text, self.goto_error = "goto", "", False

    def _next(self) -> None:
        current = self.pages if self.page == 0 else self.page
        if current < self.pages:
            self.page = current + 1
        self._repage()

    def _prev(self) -> None:
        current = self.pages if self.page == 0 else self.page
        if current > 1:
            self.page = current - 1
        self._repage()

    def _last(self) -> None:
        self.page = 0
        self._repage()

    def _repage(self) -> None:
        self.selected, self.offset_y = -1, 0
        self.refresh()

    def _goto_key(self, key: str) -> None:
        if key == Keys.Escape:
            self.mode = "main"
        elif key == Keys.ControlM:
            if not self.goto_text:
                self.mode = "main"
                return
            try:
                page = int(self.goto_text)
            except ValueError:
                page = 0
            if 0 < page <= self.pages:
                self.page, self.mode = page, "main"
                self._repage()
            else:
                self.goto_error, self.goto_text = True, ""
        elif key in (Keys.Backspace, Keys.ControlH):
            self.goto_text = self.goto_text[:-1]
        elif isinstance(key, str) and len(key) == 1 and key.isprintable():
            self.goto_text += key

    def title(self) -> str:
        return f"{frame.TITLE} ({'Changelog' if self.changelog else 'Table'})"

    def line_width(self) -> int:
        return sum(1 + w for w in self.widths)


class ResultView(ViewState):
    """The view of one query's result as a full-screen Application; `run()` returns when the learner leaves it
    (or the result failed)."""

    def __init__(self, result: QueryResult, *, changelog: bool, output: Output | None = None,
                 input: Input | None = None):
        super().__init__(result, changelog=changelog)
        control = FormattedTextControl(self.fragments, focusable=True, show_cursor=False)
        self.app: Application[None] = Application(
            layout=Layout(Window(control, wrap_lines=False)), key_bindings=self._bindings(), full_screen=True,
            output=output, input=input, mouse_support=False,
        )
        self.app.ttimeoutlen = 0.05  # Esc alone leaves quickly (Flink: "make ESC quicker")
        self.app.timeoutlen = 0.05

    def size(self) -> tuple[int, int]:
        size = self.app.output.get_size()
        return size.columns, size.rows

    async def _refresher(self) -> None:
        waited = 0.0
        while True:
            millis = frame.REFRESH_INTERVALS[self.interval][1]
            await asyncio.sleep(0.05)
            waited += 0.05
            due = millis >= 0 and waited * 1000 >= max(millis, 100)  # draw at most every 100 ms, as Flink
            ended = self.retrieving and (self.result.finished or self.result.error or self.result.gone)
            if due or ended or self._poke:
                self._poke = False
                waited = 0.0
                self.refresh()
                self.app.invalidate()
            if self.result.error or self.result.gone:
                self.app.exit()
                return
            if not self.retrieving:
                return

    def run(self) -> None:
        """Show the view until the learner leaves it (or the query fails)."""
        self.refresh()

        async def main() -> None:
            task = asyncio.ensure_future(self._refresher())
            try:
                await self.app.run_async()
            finally:
                task.cancel()

        asyncio.run(main())

    # ---- keys ---------------------------------------------------------------------------------------------

    def _bindings(self) -> KeyBindings:
        bindings = KeyBindings()

        @bindings.add(Keys.Any)
        @bindings.add(Keys.Escape, eager=True)
        @bindings.add(Keys.ControlC)
        @bindings.add(Keys.ControlM)
        @bindings.add(Keys.Up)
        @bindings.add(Keys.Down)
        @bindings.add(Keys.Left)
        @bindings.add(Keys.Right)
        @bindings.add(Keys.End)
        @bindings.add(Keys.F5)
        @bindings.add(Keys.Backspace)
        def _(event: KeyPressEvent) -> None:
            key = event.key_sequence[0].key
            self.press(key if key != Keys.Any else event.data)

        return bindings

    def press(self, key: str) -> None:
        super().press(key)
        if self.leaving:
            self.app.exit()
        self.app.invalidate()

    # ---- drawing ------------------------------------------------------------------------------------------

    def fragments(self) -> Fragments:
        width, height = self.size()
        small = frame.too_small(width, height)
        if small is not None:
            return [("", small)]
        if self.mode == "row":
            lines = self._row_lines(width, height)
        elif self.mode == "goto":
            lines = self._goto_lines(width, height)
        else:
            lines = self._main_lines(width, height)
        out: Fragments = []
        for i, line in enumerate(lines[:height]):
            if i:
                out.append(("", "\n"))
            out += line
        return out

    def _main_lines(self, width: int, height: int) -> list[Fragments]:
        middle = "" if self.changelog else frame.page_label(self.page, self.pages)
        lines: list[Fragments] = [
            [("reverse", frame.centered(self.title(), width))],
            [("reverse", frame.status_line(width, self.retrieving, self.interval, middle, self.moment))],
            [("", "")],
        ]
        header: Fragments = []
        for name, w in zip(self.names, self.widths):
            header += [("", " "), ("underline", frame.cell_text(name, w))]
        lines.append(frame.clip(header, self.offset_x, width))
        visible = height - frame.CHROME_LINES
        start = self.offset_y
        for index in range(start, min(len(self.rows), start + visible)):
            lines.append(frame.clip(self._row_fragments(index), self.offset_x, width))
        while len(lines) < height - 2:
            lines.append([("", "")])
        return lines + frame.key_lines(width, frame.CHANGELOG_KEYS if self.changelog else frame.TABLE_KEYS)

    def _row_fragments(self, index: int) -> Fragments:
        row = self.rows[index]
        selected = index == self.selected
        previous = self.previous
        fragments: Fragments = []
        for column, (cell, w) in enumerate(zip(row, self.widths)):
            changed = (previous is not None and self.retrieving and not selected
                       and (index >= len(previous) or column >= len(previous[index])
                            or previous[index][column] != cell))
            style = "reverse" if selected else ("bold" if changed else "")
            fragments += [(style, " "), (style, frame.cell_text(cell, w))]
        return fragments

    def _row_lines(self, width: int, height: int) -> list[Fragments]:
        row = self.rows[self.selected] if 0 <= self.selected < len(self.rows) else ()
        body = frame.row_summary(self.names, self.types, row)
        lines: list[Fragments] = [[("reverse", frame.centered(frame.ROW_HEADER, width))], [("", "")]]
        for style, text in body[self.row_offset: self.row_offset + height - 4]:
            lines.append([(style, text[:width])])
        while len(lines) < height - 1:
            lines.append([("", "")])
        return lines + [[("", frame.ROW_QUIT[:width])]]

    def _goto_lines(self, width: int, height: int) -> list[Fragments]:
        lines: list[Fragments] = [[("reverse", frame.centered(frame.INPUT_TITLE, width))], [("", "")],
                                  [("", f"Enter page number: [1 to {self.pages}]"[:width])],
                                  [("", ("> " + self.goto_text)[:width])]]
        if self.goto_error:
            lines.append([("bold", frame.INPUT_ERROR[:width])])
        while len(lines) < height - 1:
            lines.append([("", "")])
        return lines + [[("", frame.INPUT_HELP[:width])]]
