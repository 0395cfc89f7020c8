"""The windows lab's figure as data: the orders on an event-time axis and, per window kind, the windows the lab's
reference computes from the CSV, each with its count and sum; with a learner's saved step output, the windows they
got beside the expected ones, every difference named (missing, extra, wrong value).

A *view* is what one step shows (`tumble` counts every order once per 10-minute window, `tumble_agg` splits those
windows per shop, `hop`, `cumulate`, `session`; the Top-N steps `top_shops` and `top_orders` draw each window once
per rank, labelled with its ranked row); the figure without a step shows the four kinds at once.

Why one module of ~470 lines: the views, the expected windows and the diff against a learner's output are one
model (every view builds its rows the same way); the terminal and SVG renderers beside it only draw it.
"""

from __future__ import annotations

import calendar
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from flinklab.lab_api import (
    Settings,
    UsageError,
    as_decimal,
    as_int,
    as_timestamp,
    final_rows,
    format_number,
    read_step,
)
from flinklab.labs.windows import reference as ref
from flinklab.labs.windows.fixtures import FILE

TOLERANCE = Decimal("0.01")
#: the lab's committed CSVs (package data): the picture's data when the data dir has none
COMMITTED_DATA = (Path(__file__).resolve().parent.parent / "data").resolve()

Row = Mapping[str, "str | None"]


@dataclass(frozen=True)
class WindowValue:
    """One window's result: its bounds (epoch ms), its shop for per-shop windows, its count and sum (None when
    the output does not say). A Top-N row is its window at `rank`, `item` naming the ranked row (a shop, `#17` for
    an order) and `revenue` its value (the shop's revenue, the order's amount)."""

    kind: str
    start: int
    end: int
    shop: str | None = None
    orders: int | None = None
    revenue: Decimal | None = None
    rank: int | None = None
    item: str | None = None

    @property
    def key(self) -> tuple[int, int, str | None, int | None]:
        return (self.start, self.end, self.shop, self.rank)

    def label(self, with_revenue: bool = True) -> str:
        """`9 · 1759.05` (count · sum), `A · 1759.05` (a ranked row and its value), or what of it the output has."""
        text = (self.item or "") if self.rank is not None else ("" if self.orders is None else str(self.orders))
        if with_revenue and self.revenue is not None:
            text += f" · {format_number(self.revenue, keep_zeros=True)}"
        return text.strip(" ·")

    def bounds(self) -> str:
        """`[09:00, 09:10)`, with the shop of a per-shop window and the rank of a Top-N row."""
        return f"[{clock(self.start)}, {clock(self.end)})" + (f" shop {self.shop}" if self.shop else "") + (
            f" rank {self.rank}" if self.rank is not None else "")


@dataclass(frozen=True)
class Bar:
    """A window drawn as a bar. `status`: "" (nothing to compare with), ok, missing, wrong or extra; `source`:
    expected (the reference) or yours (the learner's output); `other` is the other side's value of a wrong one."""

    value: WindowValue
    source: str = "expected"
    status: str = ""
    other: WindowValue | None = None


@dataclass
class Lane:
    """One row of bars (windows that do not overlap), labelled on its first row only."""

    label: str
    bars: list[Bar] = field(default_factory=list)


@dataclass
class Band:
    """The lanes of one window kind from one source (a heading and its rows of bars)."""

    title: str
    kind: str
    source: str
    lanes: list[Lane] = field(default_factory=list)


@dataclass
class WindowsFigure:
    """Everything a renderer draws: the orders, the bands of window bars, the range and what differs."""

    title: str
    orders: list[ref.Order]
    bands: list[Band]
    start: int  # the time range drawn (epoch ms)
    end: int
    full_start: int  # the whole data set's range
    full_end: int
    notes: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    compared: bool = False  # a learner's output was found and compared
    legend: str = "orders · revenue"  # what a bar's label says

    @property
    def shops(self) -> list[str]:
        return sorted({o.shop for o in self.orders})

    def bars(self) -> list[Bar]:
        return [bar for band in self.bands for lane in band.lanes for bar in lane.bars]


def hhmm(ms: int) -> str:
    """Epoch ms as `HH:MM`."""
    return ref.fmt_ms(ms)[11:16]


def clock(ms: int) -> str:
    """HH:MM, or HH:MM:SS when the seconds matter (a session starts at its first order)."""
    text = ref.fmt_ms(ms)[11:19]
    return text[:5] if text.endswith(":00") else text


def stamp(ms: int) -> str:
    """`yyyy-MM-dd HH:mm:ss`, as the SVG's data attributes carry it."""
    return ref.fmt_ms(ms)[:19]


# ---- views: what each step shows, expected and found ---------------------------------------------------------


def _per_window(pairs: Sequence[tuple[tuple, ref.Order]], kind: str) -> list[WindowValue]:
    orders: dict[tuple, int] = defaultdict(int)
    sums: dict[tuple, Decimal] = defaultdict(Decimal)
    for key, order in pairs:
        orders[key] += 1
        sums[key] += order.amount
    return [WindowValue(kind, k[0], k[1], k[2] if len(k) > 2 else None, orders[k], sums[k]) for k in sorted(orders)]


def _ms(value: str | None) -> int | None:
    dt = as_timestamp(value)
    if dt is None:
        return None
    return calendar.timegm(dt.timetuple()) * ref.SECOND + dt.microsecond // 1000


def _found_tumble(rows: Sequence[Row]) -> list[WindowValue]:
    counts: dict[tuple[int, int], int] = defaultdict(int)
    sums: dict[tuple[int, int], Decimal] = defaultdict(Decimal)
    for row in rows:
        start, end = _ms(row.get("window_start")), _ms(row.get("window_end"))
        if start is not None and end is not None:
            counts[(start, end)] += 1
            sums[(start, end)] += as_decimal(row.get("amount")) or Decimal()
    return [WindowValue("tumble", s, e, None, counts[(s, e)], sums[(s, e)]) for s, e in sorted(counts)]


def _found_rows(kind: str, per_shop: bool, revenue: bool) -> Callable[[Sequence[Row]], list[WindowValue]]:
    def found(rows: Sequence[Row]) -> list[WindowValue]:
        out = []
        for row in rows:
            start, end = _ms(row.get("window_start")), _ms(row.get("window_end"))
            if start is None or end is None:
                continue
            out.append(WindowValue(kind, start, end, str(row.get("shop")) if per_shop else None,
                                   as_int(row.get("orders")),
                                   as_decimal(row.get("revenue")) if revenue else None))
        return sorted(out, key=lambda v: (v.start, v.end, v.shop or ""))
    return found


def _ranked(rows: list[ref.Ranked], item: str) -> list[WindowValue]:
    return [WindowValue("tumble", r.window[0], r.window[1], None, None, r.value, r.rn, item.format(r.key))
            for r in rows]


def _found_ranked(key: str, value: str, item: str) -> Callable[[Sequence[Row]], list[WindowValue]]:
    def found(rows: Sequence[Row]) -> list[WindowValue]:
        out = []
        for row in rows:
            start, end, rank = _ms(row.get("window_start")), _ms(row.get("window_end")), as_int(row.get("rn"))
            if start is None or end is None or rank is None:
                continue
            out.append(WindowValue("tumble", start, end, None, None, as_decimal(row.get(value)), rank,
                                   item.format(row.get(key))))
        return sorted(out, key=lambda v: (v.start, v.end, v.rank or 0))
    return found


@dataclass(frozen=True)
class View:
    """What one step of the lab shows: its window kind, the expected windows and how to read the found ones.
    `ranks` > 0: a Top-N step, its windows drawn once per rank (one lane each)."""

    step: str
    kind: str
    title: str
    per_shop: bool
    columns: tuple[str, ...]
    expected: Callable[[list[ref.Order]], list[WindowValue]]
    found: Callable[[Sequence[Row]], list[WindowValue]]
    compares_revenue: bool = True
    ranks: int = 0
    legend: str = "orders · revenue"


VIEWS: dict[str, View] = {view.step: view for view in (
    View("tumble", "tumble", "TUMBLE 10 min", False, ("order_id", "amount", "window_start", "window_end"),
         lambda orders: _per_window([(w, o) for o, w in ref.tumble_rows(orders)], "tumble"), _found_tumble),
    View("tumble_agg", "tumble", "TUMBLE 10 min per shop", True,
         ("window_start", "window_end", "shop", "orders", "revenue"),
         lambda orders: [WindowValue("tumble", s, e, shop, a.orders, a.revenue)
                         for (s, e, shop), a in ref.tumble_agg(orders).items()],
         _found_rows("tumble", True, True)),
    View("hop", "hop", "HOP slide 5 min, size 10 min", False, ("window_start", "window_end", "orders"),
         lambda orders: [WindowValue("hop", s, e, None, a.orders, a.revenue)
                         for (s, e), a in ref.hop_agg(orders).items()],
         _found_rows("hop", False, False), compares_revenue=False),
    View("cumulate", "cumulate", "CUMULATE step 10 min, size 1 h", False,
         ("window_start", "window_end", "orders", "revenue"),
         lambda orders: [WindowValue("cumulate", s, e, None, a.orders, a.revenue)
                         for (s, e), a in ref.cumulate_agg(orders).items()],
         _found_rows("cumulate", False, True)),
    View("session", "session", "SESSION gap 5 min per shop", True, ("shop", "window_start", "window_end", "orders"),
         lambda orders: [WindowValue("session", s.start, s.end, s.key, s.orders, s.revenue)
                         for s in ref.sessions(orders)],
         _found_rows("session", True, False), compares_revenue=False),
    View("top_shops", "tumble", "Window Top-N: the 2 shops with the most revenue per TUMBLE 10 min", False,
         ("window_start", "window_end", "shop", "revenue", "rn"),
         lambda orders: _ranked(ref.top_shops(orders), "{}"), _found_ranked("shop", "revenue", "{}"), ranks=2,
         legend="shop · revenue"),
    View("top_orders", "tumble", "Window Top-N: the 3 largest orders per TUMBLE 30 min", False,
         ("window_start", "window_end", "order_id", "amount", "rn"),
         lambda orders: _ranked(ref.top_orders(orders), "#{}"), _found_ranked("order_id", "amount", "#{}"), ranks=3,
         legend="order · amount"),
)}
#: The figure without a step: one view per window kind.
DEFAULT_VIEWS = ("tumble", "hop", "cumulate", "session")


def view_for(step: str) -> View:
    """The view of `step`; UsageError naming the steps that have one."""
    try:
        return VIEWS[step]
    except KeyError:
        raise UsageError(f"No windows picture for step {step!r}.",
                         f"Choose one of: {', '.join(VIEWS)} (or no step for all four window kinds).") from None


# ---- comparing ---------------------------------------------------------------------------------------------------


def _same(expected: WindowValue, found: WindowValue, compares_revenue: bool) -> bool:
    if expected.orders != found.orders or expected.item != found.item:
        return False
    if not compares_revenue or expected.revenue is None:
        return True
    return found.revenue is not None and abs(expected.revenue - found.revenue) <= TOLERANCE


def compare(view: View, expected: list[WindowValue], found: list[WindowValue] | None
            ) -> tuple[list[Bar], list[Bar], list[str]]:
    """Expected bars and found bars, each with its status, and one line per difference."""
    if found is None:
        return [Bar(v) for v in expected], [], []
    pool: dict[tuple, list[WindowValue]] = defaultdict(list)
    for value in found:
        pool[value.key].append(value)
    exp_bars, differences = [], []
    matched: dict[int, Bar] = {}
    for value in expected:
        candidates = pool.get(value.key)
        if not candidates:
            exp_bars.append(Bar(value, status="missing"))
            differences.append(f"missing {value.bounds()}: expected {value.label(view.compares_revenue)}")
            continue
        got = candidates.pop(0)
        ok = _same(value, got, view.compares_revenue)
        exp_bars.append(Bar(value, status="ok" if ok else "wrong", other=None if ok else got))
        matched[id(got)] = Bar(got, "yours", "ok" if ok else "wrong", None if ok else value)
        if not ok:
            differences.append(f"wrong value {value.bounds()}: expected {value.label(view.compares_revenue)}, "
                               f"yours {got.label(view.compares_revenue)}")
    found_bars = []
    for value in found:
        bar = matched.get(id(value))
        if bar is None:
            bar = Bar(value, "yours", "extra")
            differences.append(f"extra {value.bounds()}: yours {value.label(view.compares_revenue)}")
        found_bars.append(bar)
    return exp_bars, found_bars, differences


def read_found(view: View, workspace: Path | None) -> tuple[list[WindowValue] | None, str]:
    """The learner's windows of the view's step (None when there is no output to compare) and a note ("" for
    none, and for a missing output: the figure names those in one note)."""
    if workspace is None:
        return None, ""
    out_file = f"{view.step}.out"
    out = read_step(workspace, out_file)
    if out.missing:
        return None, ""
    if not out.ok:
        return [], f"yours: {out.error}"
    assert out.table is not None
    absent = [c for c in view.columns if c not in out.table.columns]
    if absent:
        return [], f"yours: {out_file} has no column {', '.join(absent)}"
    return view.found(final_rows(out.table)), ""


# ---- lanes -------------------------------------------------------------------------------------------------------


def _stack(bars: list[Bar], label: str) -> list[Lane]:
    """Overlapping windows go on separate lanes: each bar on the first lane whose last bar ends by its start."""
    lanes: list[Lane] = []
    for bar in sorted(bars, key=lambda b: (b.value.start, b.value.end)):
        for lane in lanes:
            if lane.bars[-1].value.end <= bar.value.start:
                lane.bars.append(bar)
                break
        else:
            lanes.append(Lane(label if not lanes else "", [bar]))
    return lanes or [Lane(label)]


def _band(view: View, bars: list[Bar], source: str, shops: list[str]) -> Band:
    title = view.title if source == "expected" else f"yours: {view.step}.out"
    band = Band(title, view.kind, source)
    if view.ranks:  # a lane per rank: the expected ones, and any rank an output adds (rn <= N forgotten)
        for rank in sorted(set(range(1, view.ranks + 1)) | {b.value.rank or 0 for b in bars}):
            band.lanes += _stack([b for b in bars if b.value.rank == rank], f"rank {rank}")
    elif view.per_shop:
        keys = sorted(set(shops) | {b.value.shop or "" for b in bars})
        for shop in keys:
            band.lanes += _stack([b for b in bars if (b.value.shop or "") == shop], f"shop {shop}")
    else:
        band.lanes = _stack(bars, view.kind)
    return band


# ---- the figure ---------------------------------------------------------------------------------------------------


def load_orders(data_dir: Path, fallback: Path | None = None) -> tuple[list[ref.Order], Path]:
    """The lab's orders from `data_dir` (or `fallback`, the project's generated fixtures); UsageError if neither."""
    for folder in (data_dir, fallback):
        if folder is not None and (Path(folder) / FILE).is_file():
            path = Path(folder) / FILE
            try:
                return ref.load_orders(path), path
            except (ValueError, IndexError, ArithmeticError) as exc:  # decimal.InvalidOperation is arithmetic
                raise UsageError(f"{path} is not the windows lab's CSV ({exc}).",
                                 "Regenerate it: `flinklab fixtures generate windows`.") from None
    raise UsageError(f"The windows data {FILE} is not in {data_dir}.",
                     "Run `flink-up` (it provisions the data dir) or pass --data-dir.")


def parse_hhmm(text: str, day_ms: int, option: str) -> int:
    """`HH:MM` on the data's first day, in epoch ms; UsageError naming the option."""
    try:
        hours, minutes = (int(part) for part in text.strip().split(":"))
        if not (0 <= hours <= 24 and 0 <= minutes < 60):
            raise ValueError
    except ValueError:
        raise UsageError(f"{option} {text!r} is not a time of day.",
                         f"Write it as HH:MM, e.g. {option} 09:00.") from None
    return day_ms + hours * ref.HOUR + minutes * ref.MINUTE


def _floor(ms: int, step: int) -> int:
    return ms - ms % step


def windows_figure(orders: list[ref.Order], step: str | None = None, workspace: Path | None = None,
                   time_from: str | None = None, time_to: str | None = None,
                   default_span: int | None = None) -> WindowsFigure:
    """The figure of one step (or of all four kinds), with the learner's output in `workspace` compared.

    The range is `time_from`–`time_to` (HH:MM), else `default_span` ms from the first difference (or the first
    order), else the whole data set."""
    if not orders:
        raise UsageError("The windows data holds no orders.", "Regenerate it: `flinklab fixtures generate windows`.")
    views = [view_for(step)] if step else [VIEWS[s] for s in DEFAULT_VIEWS]
    shops = sorted({o.shop for o in orders})
    bands: list[Band] = []
    notes: list[str] = []
    differences: list[str] = []
    compared = False
    first_difference: int | None = None
    read: list[str] = []  # the outputs compared
    absent: list[str] = []  # the outputs not there
    for view in views:
        expected = view.expected(orders)
        found, note = read_found(view, workspace)
        if note:
            notes.append(note)
        elif found is None and workspace is not None:
            absent.append(f"{view.step}.out")
        if found is not None and not note:
            read.append(f"{view.step}.out")
        exp_bars, found_bars, diffs = compare(view, expected, found)
        bands.append(_band(view, exp_bars, "expected", shops))
        if found is not None:
            compared = True
            bands.append(_band(view, found_bars, "yours", shops))
            differences += [f"{view.step}: {d}" for d in diffs]
            bad = [b.value.start for b in exp_bars + found_bars if b.status not in ("ok", "")]
            if bad:
                first_difference = min(bad + ([first_difference] if first_difference is not None else []))
    if absent:  # one line for all of them (a fresh workspace has none)
        notes.insert(0, f"no {', '.join(absent)} in {workspace}: the expected windows only")
    if read:
        notes.insert(0, f"yours: {', '.join(read)} (final rows)")
    full_start = _floor(min([o.ts for o in orders] + [b.value.start for band in bands for lane in band.lanes
                                                     for b in lane.bars]), 10 * ref.MINUTE)
    last = max([o.ts + 1 for o in orders] + [b.value.end for band in bands for lane in band.lanes for b in lane.bars])
    full_end = -(-last // (10 * ref.MINUTE)) * 10 * ref.MINUTE
    start, end = full_start, full_end
    day = _floor(orders[0].ts, 24 * ref.HOUR)
    if time_from or time_to:
        start = parse_hhmm(time_from, day, "--from") if time_from else full_start
        end = parse_hhmm(time_to, day, "--to") if time_to else full_end
        if end <= start:
            raise UsageError(f"--to {hhmm(end)} is not after --from {hhmm(start)}.",
                             "Give a range like --from 09:00 --to 09:30.")
    elif default_span is not None:
        first = first_difference if first_difference is not None else min(o.ts for o in orders)
        start = _floor(first, 10 * ref.MINUTE)
        start = max(full_start, min(start, full_end - default_span))
        end = min(full_end, start + default_span)
    title = f"windows lab: {views[0].title}" if step else "windows lab: TUMBLE, HOP, CUMULATE and SESSION windows"
    return WindowsFigure(title, list(orders), bands, start, end, full_start, full_end, notes, differences, compared,
                         views[0].legend if step else "orders · revenue")


def windows_figure_for(settings: Settings, step: str | None = None, time_from: str | None = None,
                       time_to: str | None = None, default_span: int | None = None) -> WindowsFigure:
    """The figure from the settings' data dir (else the lab's committed CSVs) and the learner's
    windows workspace, when it exists."""
    orders, path = load_orders(settings.data_dir, COMMITTED_DATA)
    workspace = settings.workspace("windows")
    figure = windows_figure(orders, step, workspace if workspace.is_dir() else None, time_from, time_to,
                            default_span)
    if path.parent != Path(settings.data_dir):
        figure.notes.insert(0, f"data: {path} ({FILE} is not in {settings.data_dir})")
    return figure
