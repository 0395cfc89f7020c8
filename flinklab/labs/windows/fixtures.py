"""The windows lab's data: `windows_orders.csv`, deterministic per seed.

Every two-hour block holds exactly 119 orders from five shops. Each shop's orders come in sessions (gaps of at most
5 minutes inside a session, more than 5 minutes between sessions) of different sizes. The first block pins the edge
cases the lab is about: the first order at 09:01:35 (not on a window boundary), an order at exactly 09:10:00 (on
one: a TUMBLE and HOP edge, the end of the first CUMULATE window), one at exactly 10:00:00 (where a new hour's
CUMULATE windows and a 30-minute TUMBLE window start), a gap of exactly 5 minutes (one session in Flink) and one of
5 minutes 1 second (two sessions). Every block repeats them at its own times. Amounts are unique and no two shops
share a revenue inside any 10-minute window, so every Top-N answer is unique.

`scale` K lays K such blocks end to end (K × 119 orders); every property holds per block and overall.
"""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import datetime, timedelta

from flinklab.lab_api import DataRows

FILE = "windows_orders.csv"
ORDERS_PER_BLOCK = 119
DAY = datetime(2024, 1, 15)
FIRST_BLOCK = DAY.replace(hour=9)
BLOCK = timedelta(hours=2)
GAP_S = 300  # the SESSION gap the lab uses
WINDOW_S = 600  # the TUMBLE size the Top-N shops step uses
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"

#: Orders per session, per shop: they sum to 119 and differ inside each shop, so sessions differ in length.
SESSION_SIZES: dict[str, tuple[int, ...]] = {
    "A": (6, 3, 8, 2, 5),
    "B": (4, 7, 1, 6, 5),
    "C": (9, 2, 5, 4, 3),
    "D": (3, 5, 10, 6),
    "E": (2, 8, 4, 6, 5),
}
# Where each shop's first session starts inside a block (seconds after the block start); A starts the block.
SHOP_START_S = {"A": 95, "B": 150, "C": 230, "D": 290, "E": 410}
HOUR_S = 3600  # one order exactly here: a new hour's CUMULATE windows and a 30-minute window start at it
MAX_HOUR_SHIFT_S = 120  # how far the order moved there may come from
LAST_ORDER_S = 2 * 3600 - 90  # every block's orders end before the next block's first order minus a gap
MAX_ATTEMPTS = 500


def _shop_offsets(rng: random.Random, shop: str) -> list[int]:
    """Seconds after the block start of one shop's orders, session by session."""
    sizes = list(SESSION_SIZES[shop])
    rng.shuffle(sizes)
    out: list[int] = []
    if shop == "A":
        # A's first session holds the pinned orders: 09:01:35 -> 09:06:35 is exactly the gap (Flink keeps one
        # session) and 09:10:00 sits on a window boundary; its first session needs at least 3 orders
        sizes.sort(key=lambda n: n < 3)
        out = [95, 95 + GAP_S, 600]
    t = out[-1] if out else SHOP_START_S[shop]
    for s_index, size in enumerate(sizes):
        if s_index == 0 and out:
            size -= len(out)
        elif s_index:
            if shop == "B" and s_index == len(sizes) - 1:
                t += GAP_S + 1  # 5 min 1 s: Flink splits the sessions
            else:
                t += rng.randint(GAP_S + 60, GAP_S + 780)  # a clear break between sessions
            out.append(t)
            size -= 1
        elif not out:
            out.append(t)
            size -= 1
        for _ in range(size):
            t += rng.randint(25, 270)
            out.append(t)
    return out


def _on_the_hour(events: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The events with one order exactly at HOUR_S (moved there from the nearest second that keeps its shop's
    sessions as drawn), if none is there already; ValueError when no nearby order can move. Uses no rng, so a draw
    that already has one is unchanged."""
    if any(t == HOUR_S for t, _ in events):
        return events
    times: dict[str, list[int]] = defaultdict(list)
    for t, shop in events:
        times[shop].append(t)
    for t, shop in sorted(events, key=lambda e: (abs(e[0] - HOUR_S), e[0])):
        if abs(t - HOUR_S) > MAX_HOUR_SHIFT_S:
            break
        own = sorted(times[shop])
        i = own.index(t)
        neighbours = [(own[i - 1], t)] if i else []
        neighbours += [(t, own[i + 1])] if i + 1 < len(own) else []
        moved = [(HOUR_S, b) if a == t else (a, HOUR_S) for a, b in neighbours]
        if all(_same_kind_of_gap(b - a, nb - na) for (a, b), (na, nb) in zip(neighbours, moved, strict=False)):
            return sorted((HOUR_S, s) if (u, s) == (t, shop) else (u, s) for u, s in events)
    raise ValueError("no order can move to the hour")


def _same_kind_of_gap(old: int, new: int) -> bool:
    # inside a session (but not the pinned exact gap) stays inside, a break stays a clear break (not the pinned 5 min
    # 1 s), so the sessions and their pinned edge cases are those drawn
    if old in (GAP_S, GAP_S + 1):
        return False
    return 0 < new < GAP_S if old < GAP_S else new >= GAP_S + 60


def _block(rng: random.Random) -> list[tuple[int, str]]:
    """(second offset, shop) for one block, sorted; raises ValueError when a draw breaks a property."""
    events = [(t, shop) for shop in SESSION_SIZES for t in _shop_offsets(rng, shop)]
    events = _on_the_hour(sorted(events))
    times = [t for t, _ in events]
    if len(set(times)) != len(times):
        raise ValueError("two orders in the same second")  # keeps the CSV order (and watermarks) unambiguous
    if times[-1] > LAST_ORDER_S:
        raise ValueError("block overflows two hours")
    if not any(3600 <= t < 3600 + WINDOW_S for t in times):
        raise ValueError("the second hour needs an order in its first 10 minutes (6 CUMULATE windows)")
    if events[0] != (95, "A"):
        raise ValueError("the block must start with A's 09:01:35 order")
    return events


def _revenues_unique(orders: list[tuple[datetime, str, int]]) -> bool:
    """No two shops share a revenue in any 10-minute window."""
    revenue: dict[tuple[int, str], int] = defaultdict(int)
    for ts, shop, cents in orders:
        window = int((ts - DAY).total_seconds()) // WINDOW_S
        revenue[(window, shop)] += cents
    per_window: dict[int, list[int]] = defaultdict(list)
    for (window, _), cents in revenue.items():
        per_window[window].append(cents)
    return all(len(set(v)) == len(v) for v in per_window.values())


def _draw_block(rng: random.Random) -> list[tuple[int, str]]:
    for _ in range(MAX_ATTEMPTS):
        try:
            return _block(rng)
        except ValueError:
            continue  # the next draw from the same generator: still deterministic
    raise RuntimeError(f"no valid block after {MAX_ATTEMPTS} draws")


def generate(seed: int = 42, scale: int = 1) -> dict[str, DataRows]:
    """`{"windows_orders.csv": rows}`: scale × 119 orders, sorted by time, rows of string fields.

    Fields: order_id, shop, amount (two decimals), order_time (`yyyy-MM-dd HH:mm:ss`).
    """
    if scale < 1:
        raise ValueError("scale must be at least 1")
    rng = random.Random(f"windows:{seed}")
    stamped = [
        (FIRST_BLOCK + b * BLOCK + timedelta(seconds=t), shop)
        for b in range(scale)
        for t, shop in _draw_block(rng)
    ]
    for _ in range(MAX_ATTEMPTS):
        # unique amounts: distinct cents drawn without replacement
        cents = rng.sample(range(500, 50000), len(stamped))
        orders = [(ts, shop, c) for (ts, shop), c in zip(stamped, cents, strict=False)]
        if _revenues_unique(orders):
            break
    else:
        raise RuntimeError(f"no tie-free amounts for seed {seed} scale {scale}")
    rows = [
        (str(i), shop, f"{c // 100}.{c % 100:02d}", ts.strftime(TIME_FORMAT))
        for i, (ts, shop, c) in enumerate(orders, start=1)
    ]
    return {FILE: rows}
