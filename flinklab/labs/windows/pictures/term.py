"""The windows figure in a terminal: one line per lane, a time range of the data across at most 80 columns.

A window is `[──── label ───)` from its start column to its end column (half-open, as Flink's windows are); a
window cut by the range edge shows `‹` or `›` there. Orders are `●` (a digit when several share a column).
Differences carry a mark before the label: `✗` missing, `≠` wrong value, `+` extra.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from flinklab.labs.windows import reference as ref
from flinklab.labs.windows.pictures.figure import Bar, WindowsFigure, hhmm

LABEL_W = 11
MAX_WIDTH = 80
MAX_DIFFERENCES = 12
KIND_STYLES = {"tumble": "blue", "hop": "green", "cumulate": "dark_orange", "session": "magenta"}
SHOP_STYLES = ("blue", "green", "red", "magenta", "yellow", "cyan", "bright_blue", "bright_green")
MARKS = {"missing": ("✗", "bold red"), "wrong": ("≠", "bold yellow"), "extra": ("+", "bold bright_magenta")}


class _Row:
    """One line of the timeline: characters and their styles."""

    def __init__(self, width: int):
        self.chars = [" "] * width
        self.styles = [""] * width

    def put(self, col: int, text: str, style: str) -> None:
        for i, char in enumerate(text):
            if 0 <= col + i < len(self.chars):
                self.chars[col + i] = char
                self.styles[col + i] = style

    def text(self, label: str, label_style: str = "dim") -> Text:
        out = Text(label[:LABEL_W - 1].ljust(LABEL_W), style=label_style)
        for char, style in zip(self.chars, self.styles, strict=False):
            out.append(char, style=style or None)
        return out


class _Scale:
    def __init__(self, figure: WindowsFigure, width: int):
        self.start, self.end = figure.start, figure.end
        self.width = width

    def col(self, ms: int) -> int:
        ms = min(max(ms, self.start), self.end)
        return (ms - self.start) * self.width // (self.end - self.start)


def _axis(scale: _Scale) -> list[Text]:
    labels, ruler = _Row(scale.width), _Row(scale.width)
    ruler.put(0, "─" * scale.width, "dim")
    t = scale.start - scale.start % (5 * ref.MINUTE)
    next_free = 0
    while t < scale.end:
        if t >= scale.start:
            col = scale.col(t)
            major = t % (10 * ref.MINUTE) == 0
            ruler.put(col, "┴" if major else "·", "dim")
            if major and col >= next_free and col + 5 <= scale.width:
                labels.put(col, hhmm(t), "bold")
                next_free = col + 6
        t += 5 * ref.MINUTE
    return [labels.text(""), ruler.text("event time")]


def _orders(figure: WindowsFigure, scale: _Scale) -> list[Text]:
    lines = []
    for i, shop in enumerate(figure.shops):
        counts: dict[int, int] = {}
        for order in figure.orders:
            if order.shop == shop and figure.start <= order.ts < figure.end:
                col = scale.col(order.ts)
                counts[col] = counts.get(col, 0) + 1
        row = _Row(scale.width)
        for col, n in counts.items():
            row.put(col, "●" if n == 1 else (str(n) if n < 10 else "+"), SHOP_STYLES[i % len(SHOP_STYLES)])
        lines.append(row.text(f"shop {shop}"))
    return lines


def _bar(row: _Row, bar: Bar, scale: _Scale, with_revenue: bool) -> None:
    value = bar.value
    if value.end <= scale.start or value.start >= scale.end:
        return
    c0, c1 = scale.col(value.start), scale.col(value.end)
    c1 = max(c1, c0 + 1)
    mark, style = MARKS.get(bar.status, ("", KIND_STYLES.get(value.kind, "")))
    fill = "╌" if bar.status in ("missing", "extra") else "─"
    width = c1 - c0
    body = [fill] * width
    body[0] = "[" if value.start >= scale.start else "‹"
    if width > 1:
        body[-1] = ")" if value.end <= scale.end else "›"
    for label in (value.label(with_revenue), value.label(False), ""):
        text = f"{mark}{label}" if label else mark
        if len(text) <= width - 2:
            text += " " if len(text) <= width - 3 else ""
            body[1:1 + len(text)] = list(text)
            break
    row.put(c0, "".join(body), style)


def _bands(figure: WindowsFigure, scale: _Scale) -> list[Text]:
    lines = []
    for band in figure.bands:
        lines.append(Text(band.title, style="bold magenta" if band.source == "yours" else "bold"))
        for lane in band.lanes:
            row = _Row(scale.width)
            for bar in lane.bars:
                _bar(row, bar, scale, band.kind != "session")
            lines.append(row.text(lane.label))
    return lines


def windows_renderable(figure: WindowsFigure, width: int = MAX_WIDTH) -> Group:
    """The figure as rich Text lines, at most `width` (≤ 80) columns wide."""
    width = max(LABEL_W + 20, min(width, MAX_WIDTH))
    scale = _Scale(figure, width - LABEL_W - 1)
    lines: list[Text] = [Text(figure.title, style="bold")]
    span = f"{hhmm(figure.start)}–{hhmm(figure.end)}"
    if (figure.start, figure.end) != (figure.full_start, figure.full_end):
        span += f" of {hhmm(figure.full_start)}–{hhmm(figure.full_end)}: --from/--to, or --svg FILE for all"
    lines.append(Text(span, style="dim"))
    lines += [Text(note, style="dim") for note in figure.notes]
    lines += _axis(scale) + _orders(figure, scale) + _bands(figure, scale)
    lines.append(Text(f"[start, end) = a window; label = {figure.legend}", style="dim"))
    if figure.compared:
        legend = Text()
        for status, (mark, style) in MARKS.items():
            legend.append(f"{mark} {status}  ", style=style)
        lines.append(legend)
        if figure.differences:
            lines.append(Text(f"{len(figure.differences)} difference(s):", style="bold red"))
            for line in figure.differences[:MAX_DIFFERENCES]:
                lines.append(Text(f"  {line}"))
            if len(figure.differences) > MAX_DIFFERENCES:
                lines.append(Text(f"  … {len(figure.differences) - MAX_DIFFERENCES} more", style="dim"))
        else:
            lines.append(Text("Your windows match the expected ones.", style="bold green"))
    return Group(*lines)
