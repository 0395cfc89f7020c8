"""The text of a result view's frame, as Flink's CliView and CliResultView lay it out: a title line, a status line
and an empty line, the column header, the rows, and two lines of key labels. Pure functions of the view's state
and the terminal's size, so they are tested without a terminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from flinklab.sqlclient import tableau

#: Flink's CliResultView.REFRESH_INTERVALS: label and milliseconds (-1: never).
REFRESH_INTERVALS: list[tuple[str, int]] = [
    ("Fastest", 0), ("100 ms", 100), ("500 ms", 500), ("1 s", 1000), ("5 s", 5000), ("10 s", 10000),
    ("1 min", 60000), ("-", -1),
]
TABLE_REFRESH = 3  # "1 s", Flink's table view default
CHANGELOG_REFRESH = 0  # "Fastest", Flink's changelog view default
TABLE_MIN_REFRESH = 1
CHANGELOG_MIN_REFRESH = 0

TITLE = "SQL Query Result"
STOPPED = "Table program finished."
PAUSED = "Paused"  # flinklab's: the learner stopped the automatic refresh
ROW_HEADER = "Row Summary"
ROW_QUIT = "Press Q to go back."
INPUT_TITLE = "Input Dialog"
INPUT_HELP = "Press Enter to submit. Press ESC or submit an empty string to cancel."
INPUT_ERROR = "The input is invalid please check it again."
MARGIN = " "

#: Lines of the frame that are not rows: title, status, empty line, column header, two footer lines.
CHROME_LINES = 6
MIN_WIDTH = 30
MIN_HEIGHT = CHROME_LINES + 1


def too_small(width: int, height: int) -> str | None:
    """The one line shown instead of the frame when the terminal cannot hold it, else None."""
    if width >= MIN_WIDTH and height >= MIN_HEIGHT:
        return None
    return f"Terminal too small ({width}x{height}): the result view needs {MIN_WIDTH}x{MIN_HEIGHT}. Q quits."[:width]


def centered(text: str, width: int) -> str:
    total = max(0, width - len(text))
    return " " * (total // 2) + text + " " * (total // 2 + total % 2)


def updated(moment: datetime | None) -> str:
    """`Updated: HH:mm:ss.SSS` (Flink's TIME_FORMATTER), `Updated: Unknown` before the first refresh."""
    if moment is None:
        return "Updated: Unknown"
    return "Updated: " + moment.strftime("%H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


def status_line(width: int, retrieving: bool, interval: int, middle: str, moment: datetime | None, *,
                paused: bool = False) -> str:
    """Left: the refresh interval (`Paused` while the learner paused it, `Table program finished.` once the result
    is complete); middle: the page; right: the update time."""
    refresh = PAUSED if paused else REFRESH_INTERVALS[interval][0]
    left = MARGIN + ("Refresh: " + refresh if retrieving else STOPPED)
    right = updated(moment) + MARGIN
    line = left + " " * max(0, (width - len(middle)) // 2 - len(left)) + middle
    line += " " * max(0, width - len(line) - len(right)) + right
    return line[:width].ljust(width)


def page_label(page: int, pages: int) -> str:
    """`Page: Last of 3` (following the last page, Flink's default) or `Page: 2 of 3`."""
    return f"Page: {'Last' if page == 0 else page} of {pages}"


def key_lines(width: int, keys: Sequence[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """The two footer lines of key labels (Flink's formatTwoLineHelpOptions): each option a key shown in reverse
    video and its label, spread over the width. Fragments of (style, text)."""
    half = -(-len(keys) // 2)
    lines = []
    for options in (keys[:half], keys[half:]):
        cell = max(1, width // max(1, half))
        fragments: list[tuple[str, str]] = []
        for key, label in options:
            fragments += [("reverse", key), ("", (" " + label)[: max(0, cell - len(key))].ljust(cell - len(key)))]
        lines.append(fragments)
    return lines


def cell_text(cell: str, width: int) -> str:
    """A cell right-aligned in `width`, cut with `...` as the tableau cuts it (one implementation: tableau's)."""
    return tableau.format_row([cell], [width])[2:-2]


def row_summary(names: Sequence[str], types: Sequence[str], row: Sequence[str]) -> list[tuple[str, str]]:
    """The Row Summary of an opened row: each field `name (TYPE):` then its value, a blank line between."""
    lines: list[tuple[str, str]] = []
    for name, kind, value in zip(names, types, row):
        lines.append(("bold", f"{name} ({kind}):"))
        lines.append(("", value))
        lines.append(("", ""))
    return lines


def clip(fragments: Sequence[tuple[str, str]], start: int, width: int) -> list[tuple[str, str]]:
    """The part of a line of fragments from column `start`, `width` columns long (horizontal scrolling)."""
    out: list[tuple[str, str]] = []
    position = 0
    for style, text in fragments:
        end = position + len(text)
        lo, hi = max(start, position), min(start + width, end)
        if lo < hi:
            out.append((style, text[lo - position: hi - position]))
        position = end
    return out


def row_cells(row: Sequence[str], widths: Sequence[int], selected: bool, before: Sequence[str] | None,
              marking: bool) -> list[tuple[str, str]]:
    """A row's cells: reversed when selected; with `marking`, a cell that differs from `before` (the same row at
    the last refresh; None: the row is new) in bold, as Flink marks what a refresh changed."""
    fragments: list[tuple[str, str]] = []
    for column, (cell, w) in enumerate(zip(row, widths)):
        changed = marking and (before is None or column >= len(before) or before[column] != cell)
        style = "reverse" if selected else ("bold" if changed else "")
        fragments += [(style, " "), (style, cell_text(cell, w))]
    return fragments


def row_summary_lines(body: Sequence[tuple[str, str]], offset: int, width: int,
                      height: int) -> list[list[tuple[str, str]]]:
    """The Row Summary screen (Flink's CliRowView): its title, the fields from line `offset`, `Press Q ...`."""
    lines: list[list[tuple[str, str]]] = [[("reverse", centered(ROW_HEADER, width))], [("", "")]]
    for style, text in body[offset: offset + height - 4]:
        lines.append([(style, text[:width])])
    while len(lines) < height - 1:
        lines.append([("", "")])
    return lines + [[("", ROW_QUIT[:width])]]
