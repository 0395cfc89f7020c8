"""The plain-Python reference on tiny data sets whose answers are known.

The main data set is flink-facts.md §0; the expected values are the outputs a live Flink cluster printed for it
(§1a-1g), so the reference agrees with real Flink, not only with our reading of the docs.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest

from flinklab.errors import UsageError
from flinklab.lab_api import render_csv
from flinklab.labs.joins import reference as ref
from flinklab.labs.joins.fixtures import ORDERS, RATES, SHIPMENTS, USERS

D = "2024-01-01"
FACTS_DATA = {
    USERS: [("u1", "gold", "2023-12-01 00:00:00"), ("u2", "silver", "2023-12-15 00:00:00"),
            ("u3", "gold", f"{D} 12:00:00")],
    ORDERS: [("o0", "u1", "USD", "7.00", f"{D} 09:30:00"), ("o1", "u1", "EUR", "100.00", f"{D} 10:00:00"),
             ("o2", "u2", "USD", "50.00", f"{D} 10:05:00"), ("o3", "u3", "EUR", "30.00", f"{D} 10:10:00"),
             ("o4", "u1", "USD", "20.00", f"{D} 10:20:00"), ("o5", "u2", "EUR", "10.00", f"{D} 10:30:00"),
             ("o6", "u2", "GBP", "5.00", f"{D} 10:40:00")],
    SHIPMENTS: [("s1", "o1", f"{D} 10:00:00"), ("s0", "o0", f"{D} 10:30:00"), ("s6", "o6", f"{D} 10:39:59"),
                ("s5", "o5", f"{D} 10:45:00"), ("s2", "o2", f"{D} 12:05:00"), ("s3", "o3", f"{D} 12:10:01")],
    RATES: [("EUR", "1.1000", f"{D} 09:00:00"), ("USD", "0.9000", f"{D} 10:05:00"), ("EUR", "1.2000", f"{D} 10:10:00"),
            ("USD", "0.9500", f"{D} 10:25:00"), ("GBP", "1.3000", f"{D} 11:00:00")],
}


@pytest.fixture
def facts(tmp_path: Path) -> ref.JoinsData:
    # Through real CSV files, as the grader reads them.
    for name, rows in FACTS_DATA.items():
        (tmp_path / name).write_text(render_csv(rows), encoding="utf-8")
    return ref.load(tmp_path)


def t(hms: str) -> datetime:
    return datetime.fromisoformat(f"{D} {hms}")


def test_counts_match_flink_batch(facts):  # §1g
    assert ref.counts(facts) == {"users": 3, "orders": 7, "shipments": 6, "rates": 5}


def test_regular_join_per_tier_matches_flink(facts):  # §1a: gold 4 157.00, silver 3 65.00
    assert ref.per_tier(facts) == {"gold": (4, Decimal("157.00")), "silver": (3, Decimal("65.00"))}


def test_regular_left_join_variant_counts_unknown_users(facts):
    data = ref.from_rows({**FACTS_DATA, ORDERS: FACTS_DATA[ORDERS] + [("o7", "u41", "USD", "1.00", f"{D} 11:00:00")]})
    assert ref.per_tier(data)["gold"] == (4, Decimal("157.00"))
    assert None not in ref.per_tier(data)
    assert ref.per_tier(data, left_join=True)[None] == (1, Decimal("1.00"))


def test_interval_rows_match_flink(facts):  # §1b: 0 s and 7200 s in, 7201 s and -1 s out
    assert ref.interval_rows(facts) == {("o0", "s0", 3600), ("o5", "s5", 900), ("o1", "s1", 0), ("o2", "s2", 7200)}


def test_interval_with_strict_upper_bound_drops_7200(facts):
    assert ref.interval_rows(facts, include_upper=False) == {("o0", "s0", 3600), ("o5", "s5", 900), ("o1", "s1", 0)}


def test_unshipped_matches_flink(facts):  # §1c: late (7201 s), never shipped, shipped 1 s before
    assert ref.unshipped(facts) == {("o3", t("10:10:00")), ("o4", t("10:20:00")), ("o6", t("10:40:00"))}
    assert ref.never_shipped(facts) == {"o4"}


def test_temporal_matches_flink(facts):  # §1d: same-second versions used, o0 and o6 dropped
    assert ref.temporal(facts) == {
        "o1": ("EUR", Decimal("1.1000"), Decimal("110.000000")),
        "o2": ("USD", Decimal("0.9000"), Decimal("45.000000")),
        "o3": ("EUR", Decimal("1.2000"), Decimal("36.000000")),
        "o4": ("USD", Decimal("0.9000"), Decimal("18.000000")),
        "o5": ("EUR", Decimal("1.2000"), Decimal("12.000000")),
    }


def test_latest_matches_flink(facts):  # §1e final: EUR 3 168, USD 3 73.15, GBP 1 6.5
    assert ref.latest(facts) == {
        "EUR": (3, Decimal("168.000000")),
        "USD": (3, Decimal("73.150000")),
        "GBP": (1, Decimal("6.500000")),
    }
    assert ref.last_rates(facts) == {"EUR": Decimal("1.2"), "USD": Decimal("0.95"), "GBP": Decimal("1.3")}


def test_report(facts):
    report = ref.report(facts)
    assert report == {
        "matched_orders": 7,
        "interval_rows": 4,
        "unshipped_orders": 3,
        "temporal_rows": 5,
        "orders_without_rate": 2,
        "usd_gap_krw": pytest.approx(73.15 - 63.0),
    }
    assert isinstance(report["matched_orders"], int) and isinstance(report["usd_gap_krw"], float)


def test_two_part_shipment_gives_two_interval_rows():
    data = ref.from_rows({
        USERS: [], RATES: [],
        ORDERS: [("o1", "u1", "USD", "1.00", f"{D} 10:00:00")],
        SHIPMENTS: [("s1", "o1", f"{D} 10:30:00"), ("s2", "o1", f"{D} 11:59:59"), ("s3", "o1", f"{D} 12:00:01")],
    })
    assert ref.interval_rows(data) == {("o1", "s1", 1800), ("o1", "s2", 7199)}
    assert ref.unshipped(data) == set()


def test_temporal_picks_the_latest_version_not_after_the_order():
    data = ref.from_rows({
        USERS: [], SHIPMENTS: [],
        ORDERS: [("o1", "u1", "JPY", "1000.00", f"{D} 10:00:00"), ("o2", "u1", "JPY", "1000.00", f"{D} 10:00:01")],
        RATES: [("JPY", "9.0000", f"{D} 09:00:00"), ("JPY", "9.1000", f"{D} 10:00:00"),
                ("JPY", "9.2000", f"{D} 10:00:02")],
    })
    assert {k: v[1] for k, v in ref.temporal(data).items()} == {"o1": Decimal("9.1"), "o2": Decimal("9.1")}
    assert ref.latest(data) == {"JPY": (2, Decimal("18400.0000"))}


def test_load_names_a_missing_file(tmp_path: Path):
    with pytest.raises(UsageError) as info:
        ref.load(tmp_path)
    assert "joins_users.csv does not exist" in info.value.message
