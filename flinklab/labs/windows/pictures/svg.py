"""The windows figure as standalone SVG: orders as dots per shop on an event-time axis, each window a bar labelled
with its count and sum; the learner's windows under the expected ones, differences marked.

The SVG is checkable by a program: every expected window bar is a `<rect>` with `data-kind` (tumble, hop, cumulate,
session), `data-start` and `data-end` (`yyyy-MM-dd HH:mm:ss`), `data-shop` for per-shop windows, `data-status`
(ok, missing, wrong or empty); every learner's bar carries `data-found-kind` instead of `data-kind` (so that counting
`data-kind` counts the reference's windows) and `data-status` ok, wrong or extra; a Top-N row's bar also has
`data-rank` and `data-item` (its shop, or `#` and its order id); every order is a `<circle>` with `data-order`.
Dots and bars share one time-to-x function, so an order on a window's start sits exactly on its edge.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from flinklab.lab_api import CHAR_PX, MONO, Svg
from flinklab.labs.windows import reference as ref
from flinklab.labs.windows.pictures.figure import Bar, WindowsFigure, hhmm, stamp

LABEL_W = 120.0
RIGHT = 24.0
PX_PER_MIN = 9.0
LANE_H = 18.0
BAR_H = 14.0
HEAD_H = 22.0

KIND_COLORS = {"tumble": ("#cfe3f7", "#1f77b4"), "hop": ("#d5efd5", "#2ca02c"),
               "cumulate": ("#fbe3c6", "#e07b00"), "session": ("#e6dcf2", "#7b4fa8")}
SHOP_COLORS = ("#1f77b4", "#2ca02c", "#17becf", "#8c564b", "#e377c2", "#bcbd22", "#7f7f7f", "#393b79")
# (none of them is a difference mark's colour: a screenshot test looks for those)
#: Difference marks: solid colours of the badges (a screenshot test looks for them).
MARKS = {"missing": ("#d62728", "✗", "missing: expected, not in your output"),
         "wrong": ("#ff7f0e", "≠", "wrong value: same window, another count or sum"),
         "extra": ("#9467bd", "+", "extra: in your output, not expected")}
OK_STROKE = "#2ca02c"


class _Layout:
    """Where things go: x of a time, the running y of the next row."""

    def __init__(self, figure: WindowsFigure):
        self.figure = figure
        self.scale = PX_PER_MIN / ref.MINUTE
        self.width = LABEL_W + (figure.end - figure.start) * self.scale + RIGHT
        self.y = 0.0

    def x(self, ms: int) -> float:
        clipped = min(max(ms, self.figure.start), self.figure.end)
        return round(LABEL_W + (clipped - self.figure.start) * self.scale, 2)

    def take(self, height: float) -> float:
        top = self.y
        self.y += height
        return top


def _axis(svg: Svg, grid: ET.Element, layout: _Layout, top: float, bottom: float) -> None:
    figure = layout.figure
    t = figure.start - figure.start % (5 * ref.MINUTE)
    while t <= figure.end:
        if t >= figure.start:
            x = layout.x(t)
            major = t % (10 * ref.MINUTE) == 0
            svg.add("line", grid, x1=x, y1=top + 16, x2=x, y2=bottom, stroke="#d0d0d0" if major else "#eeeeee")
            if major:
                svg.text(x, top + 12, hhmm(t), grid, text_anchor="middle", fill="#444444", font_family=MONO,
                         font_size=10, stroke="none")
        t += 5 * ref.MINUTE


def _orders(svg: Svg, layout: _Layout) -> None:
    figure = layout.figure
    svg.text(8, layout.take(HEAD_H) + 15, "orders (event time)", font_weight="bold")
    for i, shop in enumerate(figure.shops):
        top = layout.take(LANE_H)
        svg.text(16, top + 13, f"shop {shop}", fill="#333333")
        color = SHOP_COLORS[i % len(SHOP_COLORS)]
        for order in figure.orders:
            if order.shop != shop or not figure.start <= order.ts < figure.end:
                continue
            dot = svg.add("circle", cx=layout.x(order.ts), cy=top + LANE_H / 2, r=4.0, fill=color,
                          fill_opacity="0.85", stroke="#ffffff", stroke_width="0.8", data_order=order.order_id,
                          data_shop=shop, data_time=stamp(order.ts))
            svg.tooltip(dot, f"order {order.order_id}, shop {shop}, {ref.fmt_ms(order.ts)[:19]}, "
                             f"amount {order.amount}")


def _bar(svg: Svg, layout: _Layout, bar: Bar, top: float, with_revenue: bool) -> None:
    value = bar.value
    figure = layout.figure
    if value.end <= figure.start or value.start >= figure.end:
        return
    x0, x1 = layout.x(value.start), layout.x(value.end)
    fill, stroke = KIND_COLORS.get(value.kind, ("#eeeeee", "#777777"))
    attrs: dict = {"fill": fill, "stroke": stroke, "stroke_width": "1"}
    if bar.status == "ok":
        attrs["stroke"] = OK_STROKE
    elif bar.status in MARKS:
        attrs.update(fill="#ffffff" if bar.status == "missing" else fill, stroke=MARKS[bar.status][0],
                     stroke_width="2", stroke_dasharray="4 3" if bar.status != "wrong" else None)
    kind_attr = "data_kind" if bar.source == "expected" else "data_found_kind"
    rect = svg.add("rect", x=x0, y=top + (LANE_H - BAR_H) / 2, width=round(x1 - x0, 2), height=BAR_H, rx="2",
                   **{kind_attr: value.kind}, data_start=stamp(value.start), data_end=stamp(value.end),
                   data_shop=value.shop, data_orders=value.orders, data_rank=value.rank, data_item=value.item,
                   data_revenue=None if value.revenue is None else str(value.revenue),
                   data_source=bar.source, data_status=bar.status or None, **attrs)
    tip = f"{value.kind} {value.bounds()}: {value.label() or 'no count'}"
    if bar.status:
        tip += f" ({bar.status}" + (f"; other side {bar.other.label()}" if bar.other else "") + ")"
    svg.tooltip(rect, tip)
    text_x = x0 + 3
    if bar.status in MARKS:
        color, sign, _ = MARKS[bar.status]
        badge = svg.add("rect", x=x0 + 1.5, y=top + 3, width=12.0, height=12.0, rx="2", fill=color,
                        data_mark=bar.status)
        svg.tooltip(badge, tip)
        svg.text(x0 + 7.5, top + 13, sign, text_anchor="middle", fill="#ffffff", font_weight="bold", font_size=10)
        text_x += 13
    room = x1 - text_x - 2
    for label in (value.label(with_revenue), value.label(False)):
        if label and len(label) * CHAR_PX <= room:
            svg.text(text_x, top + 13, label, fill="#222222")
            break


def _bands(svg: Svg, layout: _Layout) -> None:
    for band in layout.figure.bands:
        head = layout.take(HEAD_H)
        color = "#7a2b8f" if band.source == "yours" else "#000000"
        svg.text(8, head + 15, band.title, font_weight="bold", fill=color)
        for lane in band.lanes:
            top = layout.take(LANE_H)
            if lane.label:
                svg.text(16, top + 13, lane.label, fill="#333333")
            with_revenue = band.kind != "session"
            for bar in lane.bars:
                _bar(svg, layout, bar, top, with_revenue)


def _legend(svg: Svg, layout: _Layout) -> None:
    top = layout.take(HEAD_H) + 6
    x = 8.0
    svg.text(x, top + 10, f"bars: [window_start, window_end), label = {layout.figure.legend}", fill="#444444")
    if not layout.figure.compared:
        return
    x = 8.0
    top = layout.take(HEAD_H) + 4
    ranked = any(bar.value.rank is not None for bar in layout.figure.bars())
    for status, (color, sign, text) in MARKS.items():
        if ranked and status == "wrong":
            text = "wrong value: same window and rank, another row or value"
        svg.add("rect", x=x, y=top, width=12.0, height=12.0, rx="2", fill=color)
        svg.text(x + 6, top + 10, sign, text_anchor="middle", fill="#ffffff", font_weight="bold", font_size=10)
        svg.text(x + 18, top + 10, text, fill="#444444")
        x += 18 + len(text) * CHAR_PX + 24


def windows_svg(figure: WindowsFigure) -> Svg:
    """The figure as an Svg (see the module docstring for what a program can read from it)."""
    layout = _Layout(figure)
    svg = Svg(layout.width, 100, title=figure.title)  # the height is known once everything is placed
    layout.take(8)
    lines = [figure.title, f"{hhmm(figure.start)}–{hhmm(figure.end)} event time; {len(figure.orders)} orders",
             *figure.notes]
    for i, line in enumerate(lines):
        svg.text(8, layout.take(16) + 12, line, font_weight="bold" if i == 0 else None,
                 font_size=13 if i == 0 else None, fill="#222222" if i == 0 else "#555555")
    axis_top = layout.take(24)
    grid = svg.group(stroke="#e3e3e3", stroke_width=1)  # first, so that the grid lies under everything
    _orders(svg, layout)
    _bands(svg, layout)
    _axis(svg, grid, layout, axis_top, layout.y)
    _legend(svg, layout)
    svg.resize(height=layout.y + 8)
    return svg
