"""Deterministic data for the joins lab: users, orders, shipments and exchange rates.

Every scale unit is one day (a "block") holding every case the lab relies on, so `scale` multiplies the volume
without losing a case. Each file is sorted by its own time column: an out-of-order row would make Flink's
watermark-driven joins drop it unpredictably.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal

from flinklab.lab_api import DataRows

USERS = "joins_users.csv"
ORDERS = "joins_orders.csv"
SHIPMENTS = "joins_shipments.csv"
RATES = "joins_rates.csv"
FILES = (USERS, ORDERS, SHIPMENTS, RATES)

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
FIRST_DAY = datetime(2024, 3, 4)
TIERS = ("gold", "silver", "bronze")
#: users who place orders but are not in joins_users.csv (the inner regular join drops them)
MISSING_USERS = ("u41", "u42", "u43", "u44")
MISSING_USER_ORDERS = 3  # per missing user and day
#: currency -> (won per unit at the start, amount range, whole amounts only)
CURRENCIES: dict[str, tuple[Decimal, tuple[int, int], bool]] = {
    "USD": (Decimal("1331.5000"), (5, 400), False),
    "EUR": (Decimal("1447.2000"), (5, 400), False),
    "JPY": (Decimal("8.9125"), (500, 40000), True),
    "GBP": (Decimal("1689.8000"), (5, 300), False),
}
#: currencies that must show a rate change in the same second as one of their orders
SAME_SECOND_CURRENCIES = ("USD", "EUR", "JPY")

ORDERS_PER_DAY = 120
USERS_PER_DAY = 40
LATE_SIGNUPS_PER_DAY = 3
NEVER_SHIPPED_PER_DAY = 10
LATE_SHIPPED_PER_DAY = 5  # besides the 7201 s one
RATE_VERSIONS_PER_DAY = 5  # per currency, besides the same-second one
TWO_HOURS = 7200


def fmt(ts: datetime) -> str:
    return ts.strftime(TIME_FORMAT)


_TIME = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")


def parse_time(text: str) -> datetime:
    """`yyyy-MM-dd HH:mm:ss` (ValueError otherwise); fromisoformat is many times faster than strptime."""
    if _TIME.fullmatch(text):
        return datetime.fromisoformat(text)
    return datetime.strptime(text, TIME_FORMAT)  # raises the ValueError that says what does not match


@dataclass
class _Order:
    order_id: str
    user_id: str
    currency: str
    amount: Decimal
    time: datetime


def generate(seed: int, scale: int) -> dict[str, DataRows]:
    """{file name: rows} for `scale` days of data, the same for the same seed."""
    if scale < 1:
        raise ValueError("scale must be at least 1")
    rng = random.Random(seed)
    # A data set whose tiers tie (same order count or amount) cannot tell a right per-tier answer from a swapped
    # one; redraw until they are distinct (the rng sequence keeps this deterministic).
    for _ in range(200):
        files = _draw(rng, scale)
        if _tiers_distinct(files) and _report_distinct(files):
            return files
    raise RuntimeError(f"seed {seed} gives no data set with distinct per-tier results")


def _tiers_distinct(files: dict[str, DataRows]) -> bool:
    tier_of = {u[0]: u[1] for u in files[USERS]}
    counts = {t: 0 for t in TIERS}
    sums = {t: Decimal(0) for t in TIERS}
    for _, user_id, _, amount, _ in files[ORDERS]:
        if user_id in tier_of:
            counts[tier_of[user_id]] += 1
            sums[tier_of[user_id]] += Decimal(amount)
    distinct = len(set(counts.values())) == len(TIERS) and len(set(sums.values())) == len(TIERS)
    return distinct and min(counts.values()) > 0


def _report_distinct(files: dict[str, DataRows]) -> bool:
    # Distinct report values: a learner who swaps two fields (or copies one into another) is caught.
    from flinklab.labs.joins import reference

    report = reference.report(reference.from_rows(files))
    integers = [v for k, v in report.items() if k != "usd_gap_krw"]
    return len(set(integers)) == len(integers)


def _user_ids(block: int) -> list[str]:
    # Day 0 has u1..u40 (so u41-u44 are the missing ones, as the lab text names them); later days u101.., u201..
    base = 0 if block == 0 else 100 * block
    return [f"u{base + i}" for i in range(1, USERS_PER_DAY + 1)]


def _amount(rng: random.Random, currency: str) -> Decimal:
    _, (low, high), whole = CURRENCIES[currency]
    if whole:
        return Decimal(rng.randint(low, high))
    return Decimal(rng.randint(low * 100, high * 100)) / 100


def _draw(rng: random.Random, scale: int) -> dict[str, DataRows]:
    users: list[tuple[str, str, datetime]] = []
    orders: list[_Order] = []
    shipments: list[tuple[str, datetime]] = []  # (order_id, ship_time); ids given after sorting
    rates: list[tuple[str, Decimal, datetime]] = []
    rate_now = {c: spec[0] for c, spec in CURRENCIES.items()}
    used_rate_times: set[datetime] = set()

    for block in range(scale):
        day = FIRST_DAY + timedelta(days=block)
        ids = _user_ids(block)
        late = rng.sample(ids, LATE_SIGNUPS_PER_DAY)
        for user_id in ids:
            tier = rng.choice(TIERS)
            if user_id in late:
                signup = day + timedelta(hours=13, seconds=rng.randrange(4 * 3600))  # an afternoon signup
            else:
                signup = day - timedelta(days=1 + rng.randrange(60), seconds=rng.randrange(86400))
            users.append((user_id, tier, signup))

        # Order times: distinct seconds between 08:00 and 20:00.
        seconds = sorted(rng.sample(range(8 * 3600, 20 * 3600), ORDERS_PER_DAY))
        morning = [s for s in seconds if s < 12 * 3600]
        owner: dict[int, str] = {}
        late_orders = rng.sample(morning, 2 * LATE_SIGNUPS_PER_DAY)
        for i, s in enumerate(late_orders):
            owner[s] = late[i % LATE_SIGNUPS_PER_DAY]
        rest = [s for s in seconds if s not in owner]
        for i, s in enumerate(rng.sample(rest, MISSING_USER_ORDERS * len(MISSING_USERS))):
            owner[s] = MISSING_USERS[i % len(MISSING_USERS)]
        regular = [u for u in ids if u not in late]
        day_orders: list[_Order] = []
        for s in seconds:
            currency = rng.choice(list(CURRENCIES))
            user_id = owner.get(s) or rng.choice(regular)
            day_orders.append(_Order("", user_id, currency, _amount(rng, currency), day + timedelta(seconds=s)))
        orders.extend(day_orders)

        _ship_day(rng, day_orders, shipments)
        _rate_day(rng, block, day, day_orders, rate_now, rates, used_rate_times)

    # Ids follow time order, so every file reads naturally.
    orders.sort(key=lambda o: o.time)
    for i, order in enumerate(orders, 1):
        order.order_id = f"o{i:04d}"
    order_ids = {id(o): o for o in orders}
    ship_rows = sorted(((order_ids[oid].order_id, t) for oid, t in shipments), key=lambda r: (r[1], r[0]))
    users.sort(key=lambda u: (u[2], u[0]))
    rates.sort(key=lambda r: r[2])
    return {
        USERS: [(u, tier, fmt(t)) for u, tier, t in users],
        ORDERS: [(o.order_id, o.user_id, o.currency, f"{o.amount:.2f}", fmt(o.time)) for o in orders],
        SHIPMENTS: [(f"s{i:04d}", oid, fmt(t)) for i, (oid, t) in enumerate(ship_rows, 1)],
        RATES: [(c, f"{r:.4f}", fmt(t)) for c, r, t in rates],
    }


def _ship_day(rng: random.Random, day_orders: list[_Order], shipments: list[tuple[int, datetime]]) -> None:
    """Give each order of one day its shipments: the boundary cases once each, then ordinary delays, two of which
    (one of them exactly 2 h) come with a second shipment 1 s too late: the order counts as shipped in time."""
    pool = list(day_orders)
    rng.shuffle(pool)

    def ship(order: _Order, delay_s: int) -> None:
        shipments.append((id(order), order.time + timedelta(seconds=delay_s)))

    ship(pool.pop(), 0)  # shipped the same second: BETWEEN includes it
    ship(pool.pop(), TWO_HOURS)  # exactly 2 h: BETWEEN includes it, `<` drops it
    ship(pool.pop(), TWO_HOURS + 1)  # 1 s too late
    ship(pool.pop(), -1)  # 1 s before the order: never in the interval
    two_parts = pool.pop()
    first = rng.randrange(60, 3600)
    ship(two_parts, first)
    ship(two_parts, rng.randrange(first + 60, TWO_HOURS))  # two interval rows for one order
    for _ in range(LATE_SHIPPED_PER_DAY):
        ship(pool.pop(), rng.randrange(TWO_HOURS + 60, 10 * 3600))
    for _ in range(NEVER_SHIPPED_PER_DAY):
        pool.pop()
    delays = [rng.randrange(60, TWO_HOURS - 60) for _ in pool]
    # Two ordinary orders also get a second shipment just outside the bound (drawn from no rng, so every other
    # value stays as it was): an unshipped query that tests each shipment instead of each order lists them.
    in_and_out, at_bound_and_out = pool[0], pool[1]
    delays[1] = TWO_HOURS  # its shipment inside the bound is exactly at it
    for order, delay_s in zip(pool, delays, strict=False):
        ship(order, delay_s)
    ship(in_and_out, TWO_HOURS + 1)
    ship(at_bound_and_out, TWO_HOURS + 1)


def _rate_day(
    rng: random.Random,
    block: int,
    day: datetime,
    day_orders: list[_Order],
    rate_now: dict[str, Decimal],
    rates: list[tuple[str, Decimal, datetime]],
    used: set[datetime],
) -> None:
    """Several rate versions per currency for one day; on day 0 each currency's first rate comes after some of
    its orders, and USD/EUR/JPY each change in the same second as one of their orders."""

    def add(currency: str, at: datetime) -> None:
        step = Decimal(rng.uniform(-0.012, 0.012)) * rate_now[currency]
        new = (rate_now[currency] + step).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)
        if new == rate_now[currency]:
            new += Decimal("0.0001")
        rate_now[currency] = new
        rates.append((currency, new, at))
        used.add(at)

    def free_second(low: int, high: int) -> datetime:
        while True:
            at = day + timedelta(seconds=rng.randrange(low, high))
            if at not in used:
                return at

    for currency in CURRENCIES:
        of_currency = [o for o in day_orders if o.currency == currency]
        start = 0
        if block == 0:
            # The first rate falls after this currency's 2nd order: at least two orders have no rate yet.
            second = of_currency[1].time
            first = second + timedelta(seconds=1 + rng.randrange(600))
            while first in used or any(o.time == first for o in of_currency):
                first += timedelta(seconds=1)
            add(currency, first)
            start = int((first - day).total_seconds()) + 1
        for _ in range(RATE_VERSIONS_PER_DAY):
            add(currency, free_second(max(start, 6 * 3600), 22 * 3600))
        if currency in SAME_SECOND_CURRENCIES:
            # A version in the same second as an order: the temporal join uses it (update_time <= order_time).
            candidates = [o for o in of_currency if int((o.time - day).total_seconds()) >= start and o.time not in used]
            add(currency, rng.choice(candidates).time)
    # Rate values walk in time order per currency: re-assign values along the sorted versions.
    _walk_in_time_order(rates, block)


def _walk_in_time_order(rates: list[tuple[str, Decimal, datetime]], block: int) -> None:
    # `add` drew values in drawing order, not time order; sort this day's versions by time so the values still
    # look like a walk (not needed for correctness, only for plausible data).
    day_start = FIRST_DAY + timedelta(days=block)
    todays = [i for i, r in enumerate(rates) if r[2] >= day_start]
    by_currency: dict[str, list[int]] = {}
    for i in todays:
        by_currency.setdefault(rates[i][0], []).append(i)
    for idxs in by_currency.values():
        values = [rates[i][1] for i in idxs]
        for i, value in zip(sorted(idxs, key=lambda i: rates[i][2]), values, strict=False):
            rates[i] = (rates[i][0], value, rates[i][2])
