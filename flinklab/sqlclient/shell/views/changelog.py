"""The changelog view (Flink's CliChangelogResultView): the result's last changes, each with its op (`+I`, `-U`,
`+U`, `-D`), following the newest unless a row is selected; no pages."""

from __future__ import annotations

from flinklab.sqlclient import tableau
from flinklab.sqlclient.shell.fold import ChangelogTail, Row
from flinklab.sqlclient.shell.views import frame
from flinklab.sqlclient.shell.views.base import COMMON_KEYS, OWN_KEYS, PAUSE_HELP, ResultView


class ChangelogResultView(ResultView):
    """The changes, oldest first, the op as the first column (not a field: the Row Summary leaves it out)."""

    MODE = "Changelog"
    KEYS = {**COMMON_KEYS, **OWN_KEYS}
    HELP = [("Q", "Quit"), ("R", "Refresh"), ("+", "Inc Refresh"), ("-", "Dec Refresh"), ("O", "Open Row"),
            ("T", "Table"), PAUSE_HELP]
    REFRESH = frame.CHANGELOG_REFRESH
    MIN_REFRESH = frame.CHANGELOG_MIN_REFRESH

    def store(self) -> ChangelogTail:
        return self.result.changelog

    def show(self, snapshot: list[Row]) -> None:
        self.previous = None
        self.rows = snapshot
        if self.selected == -1:  # follow the newest change
            self.offset_y = max(0, len(self.rows) - self.visible_rows())

    def header(self) -> list[str]:
        return [tableau.ROW_KIND_COLUMN, *self.names]

    def cell_widths(self) -> list[int]:
        return [len(tableau.ROW_KIND_COLUMN), *self.widths]

    def fields(self, row: Row) -> Row:
        return row[1:]  # Flink's getRow: the op is not a field
