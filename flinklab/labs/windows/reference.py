"""What Flink computes for the windows lab, in plain Python, from the CSV.

Rules (measured on Flink 2.x, see flink-facts §2): windows are half-open [start, end) and aligned to the epoch
(offset 0); window_time = window_end − 1 ms; HOP puts each row into size/slide windows and its aggregation requires
size to be an integral multiple of slide; CUMULATE windows share the start of the size-long tumble they sit in and
end every step; a SESSION starts at its first row and ends at its last row + gap, and two rows join when they are at
most one gap apart (intervals [t, t+gap) that touch are merged); window operators emit only windows holding rows.

Times are epoch milliseconds of the wall-clock value (TIMESTAMP(3) has no time zone, so UTC is exact).
"""

from __future__ import annotations

import calendar
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

from flinklab.lab_api import decimal_cell, int_cell, read_csv, time_cell

MS = 1
SECOND = 1000 * MS
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"

Window = tuple[int, int]  # (start ms, end ms)


@dataclass(frozen=True)
class Order:
    order_id: int
    shop: str
    amount: Decimal
    ts: int  # epoch ms


def to_ms(text: str) -> int:
    """`yyyy-MM-dd HH:mm:ss[.fff]` (a TIMESTAMP(3) as printed or stored) to epoch ms."""
    text = text.strip()
    fmt = "%Y-%m-%d %H:%M:%S.%f" if "." in text else TIME_FORMAT
    dt = datetime.strptime(text, fmt)
    return calendar.timegm(dt.timetuple()) * SECOND + dt.microsecond // 1000


def fmt_ms(ms: int) -> str:
    """Epoch ms as Flink prints a TIMESTAMP(3): `2024-01-15 09:00:00.000`."""
    dt = datetime(1970, 1, 1) + timedelta(milliseconds=ms)
    return dt.strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d}"


def parse_rows(rows: Iterable[Sequence[str]]) -> list[Order]:
    """Orders from CSV rows (order_id, shop, amount, order_time); blank lines are skipped."""
    out = []
    for row in rows:
        if not row or not "".join(row).strip():
            continue
        order_id, shop, amount, order_time = (cell.strip() for cell in row[:4])
        out.append(Order(int(order_id), shop, Decimal(amount), to_ms(order_time)))
    return out


#: windows_orders.csv's columns, typed (the same reader and messages as every lab's CSV)
COLUMNS = (("order_id", int_cell), ("shop", str.strip), ("amount", decimal_cell),
           ("order_time", time_cell(to_ms, "yyyy-MM-dd HH:mm:ss[.SSS]")))


def load_orders(path: Path) -> list[Order]:
    """The orders of the lab's CSV; FlinklabError (one line naming the file, line and column) when it is missing,
    unreadable or holds a value of the wrong type."""
    return [Order(*row) for row in read_csv(path, COLUMNS)]


def window_time(window_end: int) -> int:
    """The window's rowtime: the last millisecond inside it."""
    return window_end - 1


def tumble_start(ts: int, size: int, offset: int = 0) -> int:
    """Flink's TimeWindow.getWindowStartWithOffset (Python's % is already non-negative)."""
    return ts - (ts - offset) % size


class WindowArgumentError(ValueError):
    """The window arguments Flink rejects for an aggregation (the lab's reversed HOP/CUMULATE)."""


def tumble_windows(ts: int, size: int) -> list[Window]:
    start = tumble_start(ts, size)
    return [(start, start + size)]


def hop_windows(ts: int, slide: int, size: int) -> list[Window]:
    """Every [start, start+size) holding ts, start a multiple of slide (Flink's SlidingWindowAssigner)."""
    if size % slide:
        raise WindowArgumentError(
            f"HOP table function based aggregate requires size must be an integral multiple of slide, "
            f"but got size {size} ms and slide {slide} ms"
        )
    last_start = tumble_start(ts, slide)
    return [(s, s + size) for s in range(last_start, ts - size, -slide)][::-1]


def cumulate_windows(ts: int, step: int, size: int) -> list[Window]:
    """The windows sharing the start of ts's size-long tumble whose end (start + k·step) is after ts."""
    if size % step:
        raise WindowArgumentError(
            f"CUMULATE table function based aggregate requires maxSize must be an integral multiple of step, "
            f"but got maxSize {size} ms and step {step} ms."
        )
    start = tumble_start(ts, size)
    return [(start, end) for end in range(start + step, start + size + 1, step) if end > ts]


@dataclass(frozen=True)
class Agg:
    orders: int
    revenue: Decimal


def _aggregate(assigned: Iterable[tuple[tuple, Order]]) -> dict[tuple, Agg]:
    counts: dict[tuple, int] = defaultdict(int)
    sums: dict[tuple, Decimal] = defaultdict(Decimal)
    for key, order in assigned:
        counts[key] += 1
        sums[key] += order.amount
    return {key: Agg(counts[key], sums[key]) for key in sorted(counts)}


def tumble_rows(orders: Sequence[Order], size: int = 10 * MINUTE) -> list[tuple[Order, Window]]:
    """The raw TUMBLE TVF: every order once, with its window."""
    return [(o, w) for o in orders for w in tumble_windows(o.ts, size)]


def tumble_agg(orders: Sequence[Order], size: int = 10 * MINUTE) -> dict[tuple[int, int, str], Agg]:
    """Per (window_start, window_end, shop): orders and revenue."""
    return _aggregate(((*w, o.shop), o) for o, w in tumble_rows(orders, size))


def hop_agg(orders: Sequence[Order], slide: int = 5 * MINUTE, size: int = 10 * MINUTE) -> dict[Window, Agg]:
    """Per HOP window: orders (each order counted in size/slide windows) and revenue."""
    return _aggregate((w, o) for o in orders for w in hop_windows(o.ts, slide, size))


def cumulate_agg(orders: Sequence[Order], step: int = 10 * MINUTE, size: int = HOUR) -> dict[Window, Agg]:
    """Per CUMULATE window: orders and revenue so far since the window's (shared) start."""
    return _aggregate((w, o) for o in orders for w in cumulate_windows(o.ts, step, size))


@dataclass(frozen=True)
class Session:
    key: str | None  # the PARTITION BY value (shop), None for a global session
    start: int
    end: int
    orders: int
    revenue: Decimal

    @property
    def length_s(self) -> int:
        return (self.end - self.start) // SECOND


def sessions(orders: Sequence[Order], gap: int = 5 * MINUTE, by_shop: bool = True) -> list[Session]:
    """SESSION windows, merged as Flink merges them: a row at most `gap` after the session's last row joins it."""
    groups: dict[str | None, list[Order]] = defaultdict(list)
    for o in orders:
        groups[o.shop if by_shop else None].append(o)
    out: list[Session] = []
    for key, members in groups.items():
        members = sorted(members, key=lambda o: o.ts)
        current: list[Order] = []
        for o in members:
            if current and o.ts > current[-1].ts + gap:
                out.append(_session(key, current, gap))
                current = []
            current.append(o)
        if current:
            out.append(_session(key, current, gap))
    return sorted(out, key=lambda s: (s.start, s.key or ""))


def _session(key: str | None, members: list[Order], gap: int) -> Session:
    return Session(key, members[0].ts, members[-1].ts + gap, len(members), sum((o.amount for o in members), Decimal()))


@dataclass(frozen=True)
class Ranked:
    window: Window
    rn: int
    key: str  # shop (top shops) or order id (top orders)
    value: Decimal  # revenue or amount
    orders: int = 1


def top_shops(orders: Sequence[Order], n: int = 2, size: int = 10 * MINUTE) -> list[Ranked]:
    """Per tumble window, the n shops with the highest revenue (ties broken by shop name, as a stable choice)."""
    per_window: dict[Window, list[tuple[str, Agg]]] = defaultdict(list)
    for (start, end, shop), agg in tumble_agg(orders, size).items():
        per_window[(start, end)].append((shop, agg))
    out = []
    for window, shops in sorted(per_window.items()):
        shops.sort(key=lambda x: (-x[1].revenue, x[0]))
        out += [Ranked(window, i, shop, agg.revenue, agg.orders) for i, (shop, agg) in enumerate(shops[:n], 1)]
    return out


def top_orders(orders: Sequence[Order], n: int = 3, size: int = 30 * MINUTE) -> list[Ranked]:
    """Per tumble window, the n largest orders by amount (ties broken by order id)."""
    per_window: dict[Window, list[Order]] = defaultdict(list)
    for o, w in tumble_rows(orders, size):
        per_window[w].append(o)
    out = []
    for window, members in sorted(per_window.items()):
        members.sort(key=lambda o: (-o.amount, o.order_id))
        out += [Ranked(window, i, str(o.order_id), o.amount) for i, o in enumerate(members[:n], 1)]
    return out


@dataclass(frozen=True)
class Tie:
    """Two candidates with the same value where ROW_NUMBER's choice decides the Top-N answer."""

    window: Window
    value: Decimal
    keys: tuple[str, ...]


def _ties_at_cut(values: list[tuple[str, Decimal]], n: int, window: Window) -> list[Tie]:
    """Equal values among the top n, or between the n-th and the (n+1)-th: the answer then depends on chance."""
    ranked = sorted(values, key=lambda kv: -kv[1])
    relevant = ranked[: n + 1]
    by_value: dict[Decimal, list[str]] = defaultdict(list)
    for key, value in relevant:
        by_value[value].append(key)
    ties = []
    for value, keys in by_value.items():
        if len(keys) > 1 and any(k in dict(ranked[:n]) for k in keys):
            ties.append(Tie(window, value, tuple(sorted(keys))))
    return ties


def revenue_ties(orders: Sequence[Order], n: int = 2, size: int = 10 * MINUTE) -> list[Tie]:
    """Windows where two shops' revenues tie inside (or at the edge of) the top n."""
    per_window: dict[Window, list[tuple[str, Decimal]]] = defaultdict(list)
    for (start, end, shop), agg in tumble_agg(orders, size).items():
        per_window[(start, end)].append((shop, agg.revenue))
    return [t for w, values in sorted(per_window.items()) for t in _ties_at_cut(values, n, w)]


def amount_ties(orders: Sequence[Order], n: int = 3, size: int = 30 * MINUTE) -> list[Tie]:
    """Windows where two orders' amounts tie inside (or at the edge of) the top n."""
    per_window: dict[Window, list[tuple[str, Decimal]]] = defaultdict(list)
    for o, w in tumble_rows(orders, size):
        per_window[w].append((str(o.order_id), o.amount))
    return [t for w, values in sorted(per_window.items()) for t in _ties_at_cut(values, n, w)]


def expected_report(orders: Sequence[Order]) -> dict[str, int]:
    """The report.json values the lab asks for, as the reference solution's outputs give them."""
    hop = hop_agg(orders)
    cumulate = cumulate_agg(orders)
    per_start: dict[int, int] = defaultdict(int)
    for start, _ in cumulate:
        per_start[start] += 1
    shop_sessions = sessions(orders)
    return {
        "orders": len(orders),
        "tumble_windows": len({w for _, w in tumble_rows(orders)}),
        "hop_windows": len(hop),
        "hop_orders_total": sum(a.orders for a in hop.values()),
        "cumulate_windows": len(cumulate),
        "cumulate_windows_per_start": max(per_start.values(), default=0),
        "sessions": len(shop_sessions),
        "longest_session_s": max((s.length_s for s in shop_sessions), default=0),
        "top_shops_rows": len(top_shops(orders)),
        "top_orders_rows": len(top_orders(orders)),
    }
