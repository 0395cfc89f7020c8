"""The table view (Flink's CliTableResultView): the result folded into a table, shown page by page, following the
last page until the learner picks another; a goto-page dialog."""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.keys import Keys

from flinklab.sqlclient.shell.fold import Row, TableFold, page_count, page_of
from flinklab.sqlclient.shell.result import QueryResult
from flinklab.sqlclient.shell.views import frame
from flinklab.sqlclient.shell.views.base import COMMON_KEYS, OWN_KEYS, PAUSE_HELP, Fragments, Key, ResultView


class TableResultView(ResultView):
    """The folded result, paged (page 0: follow the last page, Flink's LAST_PAGE)."""

    MODE = "Table"
    KEYS = {**COMMON_KEYS, "goto": {"g", "G"}, "next": {"n", "N"}, "prev": {"p", "P"},
            "last": {"l", "L", Keys.End}, **OWN_KEYS}
    HELP = [("Q", "Quit"), ("R", "Refresh"), ("+", "Inc Refresh"), ("-", "Dec Refresh"), ("G", "Goto Page"),
            ("L", "Last Page"), ("N", "Next Page"), ("P", "Prev Page"), ("O", "Open Row"), ("T", "Changelog"),
            PAUSE_HELP]
    REFRESH = frame.TABLE_REFRESH
    MIN_REFRESH = frame.TABLE_MIN_REFRESH

    def __init__(self, result: QueryResult, size: Callable[[], tuple[int, int]] | None = None):
        super().__init__(result, size)
        self.page = 0  # 0: follow the last page (Flink's LAST_PAGE)
        self.pages = 1
        self.previous_page = 1
        self.goto_text = ""
        self.goto_error = False

    def store(self) -> TableFold:
        return self.result.table

    def show(self, snapshot: list[Row]) -> None:
        size = self.visible_rows()
        self.pages = page_count(len(snapshot), size)
        if self.page > self.pages:
            self.page = 0
        shown = self.pages if self.page == 0 else self.page
        page_rows = page_of(snapshot, shown, size)
        self.previous = self.rows if self.previous_page == shown else None
        self.previous_page = shown
        self.rows = page_rows

    def status_middle(self) -> str:
        return frame.page_label(self.page, self.pages)

    # ---- paging keys --------------------------------------------------------------------------------------

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

    # ---- the goto dialog (Flink's CliInputView) -----------------------------------------------------------

    def _goto(self) -> None:
        self.mode, self.goto_text, self.goto_error = "goto", "", False

    def dialog_key(self, key: Key) -> None:
        if key == Keys.Escape:
            self.mode = "main"
        elif key == Keys.ControlM:
            self._submit_page()
        elif key in (Keys.Backspace, Keys.ControlH):
            self.goto_text = self.goto_text[:-1]
        elif isinstance(key, str) and len(key) == 1 and key.isprintable():
            self.goto_text += key

    def _submit_page(self) -> None:
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

    def lines(self, width: int, height: int) -> list[Fragments]:
        if self.mode != "goto":
            return super().lines(width, height)
        lines: list[Fragments] = [[("reverse", frame.centered(frame.INPUT_TITLE, width))], [("", "")],
                                  [("", f"Enter page number: [1 to {self.pages}]"[:width])],
                                  [("", ("> " + self.goto_text)[:width])]]
        if self.goto_error:
            lines.append([("bold", frame.INPUT_ERROR[:width])])
        while len(lines) < height - 1:
            lines.append([("", "")])
        return lines + [[("", frame.INPUT_HELP[:width])]]
