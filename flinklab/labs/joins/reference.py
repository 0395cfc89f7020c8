"""The joins lab's answers, computed from the CSVs in plain Python (no Flink, no SQL engine).

This is the independent side of grading: it encodes the join semantics the lab teaches (and flink-facts.md §1
measured) directly, so a wrong query cannot agree with it by accident.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import NamedTuple

from flinklab.lab_api import Column, DataRows, decimal_cell, read_csv, text_cell, time_cell
from flinklab.labs.joins.fixtures import FILES, ORDERS, RATES, SHIPMENTS, USERS, parse_time

INTERVAL = timedelta(hours=2)


class User(NamedTuple):
    user_id: str
    tier: str
    signup_time: datetime


class Order(NamedTuple):
    order_id: str
    user_id: str
    currency: str
    amount: Decimal
    order_time: datetime


class Shipment(NamedTuple):
    ship_id: str
    order_id: str
    ship_time: datetime


class Rate(NamedTuple):
    currency: str
    rate: Decimal
    update_time: datetime


@dataclass(frozen=True)
class JoinsData:
    users: list[User]
    orders: list[Order]
    shipments: list[Shipment]
    rates: list[Rate]


def from_rows(files: dict[str, DataRows]) -> JoinsData:
    """Typed data from {file name: string rows} (the generator's output or a read CSV)."""
    return JoinsData(
        users=[User(u, t, parse_time(s)) for u, t, s in files[USERS]],
        orders=[Order(o, u, c, Decimal(a), parse_time(t)) for o, u, c, a, t in files[ORDERS]],
        shipments=[Shipment(s, o, parse_time(t)) for s, o, t in files[SHIPMENTS]],
        rates=[Rate(c, Decimal(r), parse_time(t)) for c, r, t in files[RATES]],
    )


def load(data_dir: Path) -> JoinsData:
    """Read the four CSVs (no header) from the data dir, typed. FlinklabError (one line naming the file, line and
    column) when one is missing, unreadable or holds a value of the wrong type."""
    time = time_cell(parse_time)
    columns: dict[str, tuple[Column, ...]] = {
        USERS: (("user_id", text_cell), ("tier", text_cell), ("signup_time", time)),
        ORDERS: (("order_id", text_cell), ("user_id", text_cell), ("currency", text_cell), ("amount", decimal_cell),
                 ("order_time", time)),
        SHIPMENTS: (("ship_id", text_cell), ("order_id", text_cell), ("ship_time", time)),
        RATES: (("currency", text_cell), ("rate", decimal_cell), ("update_time", time)),
    }
    rows = {name: read_csv(Path(data_dir) / name, columns[name]) for name in FILES}
    return JoinsData(
        users=[User(*row) for row in rows[USERS]],
        orders=[Order(*row) for row in rows[ORDERS]],
        shipments=[Shipment(*row) for row in rows[SHIPMENTS]],
        rates=[Rate(*row) for row in rows[RATES]],
    )


# ---- one function per step ---------------------------------------------------------------------------------


def counts(data: JoinsData) -> dict[str, int]:
    return {"users": len(data.users), "orders": len(data.orders), "shipments": len(data.shipments),
            "rates": len(data.rates)}


def per_tier(data: JoinsData, *, left_join: bool = False) -> dict[str | None, tuple[int, Decimal]]:
    """tier -> (orders, amount) of orders JOIN users ON user_id. A regular join has no time: a user who signs up
    after the order still matches. `left_join` gives what a LEFT JOIN would (unmatched orders under tier None)."""
    tier_of = {u.user_id: u.tier for u in data.users}
    result: dict[str | None, tuple[int, Decimal]] = {}
    for o in data.orders:
        if o.user_id not in tier_of and not left_join:
            continue
        tier = tier_of.get(o.user_id)
        n, total = result.get(tier, (0, Decimal(0)))
        result[tier] = (n + 1, total + o.amount)
    return result


def interval_rows(data: JoinsData, *, include_upper: bool = True) -> set[tuple[str, str, int]]:
    """(order_id, ship_id, delay_s) with ship_time BETWEEN order_time AND order_time + 2 h (both ends included;
    `include_upper=False` is what `<` instead of BETWEEN gives)."""
    by_order: dict[str, list[Shipment]] = defaultdict(list)
    for s in data.shipments:
        by_order[s.order_id].append(s)
    rows = set()
    for o in data.orders:
        for s in by_order.get(o.order_id, []):
            delay = s.ship_time - o.order_time
            if timedelta(0) <= delay and (delay <= INTERVAL if include_upper else delay < INTERVAL):
                rows.add((o.order_id, s.ship_id, int(delay.total_seconds())))
    return rows


def unshipped(data: JoinsData, *, include_upper: bool = True) -> set[tuple[str, datetime]]:
    """(order_id, order_time) of orders with no shipment in [order_time, order_time + 2 h]: never shipped,
    shipped late, or shipped only before the order. An order counts once, whatever its other shipments: one in
    the interval is enough. `include_upper=False` is what `<` instead of BETWEEN gives."""
    shipped = {order_id for order_id, _, _ in interval_rows(data, include_upper=include_upper)}
    return {(o.order_id, o.order_time) for o in data.orders if o.order_id not in shipped}


def never_shipped(data: JoinsData) -> set[str]:
    has_shipment = {s.order_id for s in data.shipments}
    return {o.order_id for o in data.orders if o.order_id not in has_shipment}


def _versions(data: JoinsData) -> dict[str, list[Rate]]:
    versions: dict[str, list[Rate]] = defaultdict(list)
    for r in sorted(data.rates, key=lambda r: r.update_time):
        versions[r.currency].append(r)
    return versions


def temporal(data: JoinsData) -> dict[str, tuple[str, Decimal, Decimal]]:
    """order_id -> (currency, rate, amount_krw) joining each order with the rate version valid at its time: the
    latest version with update_time <= order_time (a change in the same second counts). Orders before their
    currency's first rate have no version and drop out of the inner join."""
    versions = _versions(data)
    times = {c: [r.update_time for r in vs] for c, vs in versions.items()}
    rows = {}
    for o in data.orders:
        # the number of versions with update_time <= order_time (a binary search: versions are sorted by time)
        valid = bisect_right(times.get(o.currency, []), o.order_time)
        if valid:
            rate = versions[o.currency][valid - 1].rate
            rows[o.order_id] = (o.currency, rate, o.amount * rate)
    return rows


def last_rates(data: JoinsData) -> dict[str, Decimal]:
    return {c: vs[-1].rate for c, vs in _versions(data).items()}


def at_latest_rate(data: JoinsData) -> dict[str, tuple[str, Decimal, Decimal]]:
    """order_id -> (currency, rate, amount_krw) at each currency's LAST rate: what joining rates_v without
    FOR SYSTEM_TIME AS OF ends with (every order, even those before the first rate)."""
    last = last_rates(data)
    return {o.order_id: (o.currency, last[o.currency], o.amount * last[o.currency])
            for o in data.orders if o.currency in last}


def latest(data: JoinsData) -> dict[str, tuple[int, Decimal]]:
    """currency -> (orders, total_krw) of the regular join with rates_v: every order at its currency's last rate."""
    result: dict[str, tuple[int, Decimal]] = {}
    for currency, _, krw in at_latest_rate(data).values():
        n, total = result.get(currency, (0, Decimal(0)))
        result[currency] = (n + 1, total + krw)
    return result


def report(data: JoinsData) -> dict[str, int | float]:
    """report.json as the lab defines it."""
    temporal_rows = temporal(data)
    usd_latest = latest(data).get("USD", (0, Decimal(0)))[1]
    usd_temporal = sum((krw for c, _, krw in temporal_rows.values() if c == "USD"), Decimal(0))
    return {
        "matched_orders": sum(n for n, _ in per_tier(data).values()),
        "interval_rows": len(interval_rows(data)),
        "unshipped_orders": len(unshipped(data)),
        "temporal_rows": len(temporal_rows),
        "orders_without_rate": len(data.orders) - len(temporal_rows),
        "usd_gap_krw": float(usd_latest - usd_temporal),
    }
