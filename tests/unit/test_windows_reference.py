"""The windows reference on tiny data whose answers are known: the Flink docs' Bid example (anchors.md §2.6) and
the data of flink-facts.md §2 with the outputs measured on a live cluster."""

from __future__ import annotations

from decimal import Decimal

import pytest

from flinklab.labs.windows import reference as ref

MIN = ref.MINUTE


def _bids(rows: list[tuple[str, str, str]], day: str = "2020-04-15") -> list[ref.Order]:
    """Bid rows (time, price, item) as orders: item -> shop, price -> amount."""
    return ref.parse_rows([(str(i), item, price, f"{day} {t}:00") for i, (t, price, item) in enumerate(rows, 1)])


BID = _bids([("08:05", "4.00", "C"), ("08:07", "2.00", "A"), ("08:09", "5.00", "D"), ("08:11", "3.00", "B"),
             ("08:13", "1.00", "E"), ("08:17", "6.00", "F")])

# flink-facts §2: orders(order_id, shop, amount, ts) on 2024-01-01
FACTS = ref.parse_rows([
    (i, shop, amount, f"2024-01-01 {t}") for i, shop, amount, t in (
        ("1", "A", "10.00", "09:01:35"), ("2", "B", "20.00", "09:03:00"), ("3", "A", "5.00", "09:06:35"),
        ("4", "B", "30.00", "09:08:01"), ("5", "A", "7.00", "09:10:00"), ("6", "C", "50.00", "09:12:00"),
        ("7", "A", "12.00", "09:25:00"), ("8", "B", "8.00", "09:31:00"), ("9", "C", "40.00", "09:44:59"),
        ("10", "A", "25.00", "09:59:59"), ("11", "B", "60.00", "10:05:00"))
])


def _t(hhmm: str, day: str = "2020-04-15") -> int:
    return ref.to_ms(f"{day} {hhmm}:00" if hhmm.count(":") == 1 else f"{day} {hhmm}")


def _sums(aggs: dict) -> dict[tuple[str, str], Decimal]:
    return {(ref.fmt_ms(k[0])[11:16], ref.fmt_ms(k[1])[11:16]): a.revenue for k, a in aggs.items()}


# ---- the Flink docs' Bid example ---------------------------------------------------------------------------------


def test_bid_tumble_sums():
    per_window: dict[tuple[str, str], Decimal] = {}
    for (start, end, _item), agg in ref.tumble_agg(BID).items():
        key = (ref.fmt_ms(start)[11:16], ref.fmt_ms(end)[11:16])
        per_window[key] = per_window.get(key, Decimal(0)) + agg.revenue
    assert per_window == {("08:00", "08:10"): Decimal("11.00"), ("08:10", "08:20"): Decimal("10.00")}


def test_bid_hop_sums():
    assert _sums(ref.hop_agg(BID, slide=5 * MIN, size=10 * MIN)) == {
        ("08:00", "08:10"): Decimal("11.00"), ("08:05", "08:15"): Decimal("15.00"),
        ("08:10", "08:20"): Decimal("10.00"), ("08:15", "08:25"): Decimal("6.00"),
    }


def test_bid_cumulate_sums():
    assert _sums(ref.cumulate_agg(BID, step=2 * MIN, size=10 * MIN)) == {
        ("08:00", "08:06"): Decimal("4.00"), ("08:00", "08:08"): Decimal("6.00"), ("08:00", "08:10"): Decimal("11.00"),
        ("08:10", "08:12"): Decimal("3.00"), ("08:10", "08:14"): Decimal("4.00"), ("08:10", "08:16"): Decimal("4.00"),
        ("08:10", "08:18"): Decimal("10.00"), ("08:10", "08:20"): Decimal("10.00"),
    }


def test_bid_session_with_and_without_partition():
    # the docs' session data is not in time order: the reference must not depend on it
    bids = _bids([("08:07", "4.00", "A"), ("08:06", "2.00", "A"), ("08:09", "5.00", "B"), ("08:08", "3.00", "A"),
                  ("08:17", "1.00", "B")])
    by_item = [(s.key, ref.fmt_ms(s.start)[11:16], ref.fmt_ms(s.end)[11:16], s.revenue) for s in ref.sessions(bids)]
    assert sorted(by_item) == [("A", "08:06", "08:13", Decimal("9.00")), ("B", "08:09", "08:14", Decimal("5.00")),
                               ("B", "08:17", "08:22", Decimal("1.00"))]
    overall = [(ref.fmt_ms(s.start)[11:16], ref.fmt_ms(s.end)[11:16], s.revenue)
               for s in ref.sessions(bids, by_shop=False)]
    assert overall == [("08:06", "08:14", Decimal("14.00")), ("08:17", "08:22", Decimal("1.00"))]


# ---- flink-facts §2, measured on a live cluster -------------------------------------------------------------------


def test_window_columns_and_the_boundary_row():
    rows = {o.order_id: w for o, w in ref.tumble_rows(FACTS)}
    start, end = rows[1]
    assert (ref.fmt_ms(start), ref.fmt_ms(end), ref.fmt_ms(ref.window_time(end))) == (
        "2024-01-01 09:00:00.000", "2024-01-01 09:10:00.000", "2024-01-01 09:09:59.999")
    # 09:10:00 exactly opens [09:10, 09:20): windows are half-open
    assert tuple(ref.fmt_ms(x) for x in rows[5]) == ("2024-01-01 09:10:00.000", "2024-01-01 09:20:00.000")


def test_facts_tumble_aggregation():
    per_window: dict[str, tuple[int, Decimal]] = {}
    for (start, _end, _shop), agg in ref.tumble_agg(FACTS).items():
        n, total = per_window.get(ref.fmt_ms(start)[11:16], (0, Decimal(0)))
        per_window[ref.fmt_ms(start)[11:16]] = (n + agg.orders, total + agg.revenue)
    assert per_window == {"09:00": (4, Decimal("65.00")), "09:10": (2, Decimal("57.00")),
                          "09:20": (1, Decimal("12.00")), "09:30": (1, Decimal("8.00")),
                          "09:40": (1, Decimal("40.00")), "09:50": (1, Decimal("25.00")),
                          "10:00": (1, Decimal("60.00"))}


def test_facts_hop_counts_sum_to_twice_the_orders():
    hop = ref.hop_agg(FACTS)
    assert ref.fmt_ms(next(iter(hop))[0])[11:16] == "08:55"
    assert [a.orders for a in hop.values()] == [2, 4, 4, 2, 1, 2, 1, 1, 1, 1, 1, 1, 1]
    assert sum(a.orders for a in hop.values()) == 22 == 2 * len(FACTS)


def test_facts_cumulate_six_windows_per_start():
    rows = [(ref.fmt_ms(s)[11:16], ref.fmt_ms(e)[11:16], a.orders, a.revenue) for (s, e), a in
            ref.cumulate_agg(FACTS).items()]
    assert rows[:6] == [("09:00", "09:10", 4, Decimal("65.00")), ("09:00", "09:20", 6, Decimal("122.00")),
                        ("09:00", "09:30", 7, Decimal("134.00")), ("09:00", "09:40", 8, Decimal("142.00")),
                        ("09:00", "09:50", 9, Decimal("182.00")), ("09:00", "10:00", 10, Decimal("207.00"))]
    assert rows[6:] == [("10:00", end, 1, Decimal("60.00")) for end in ("10:10", "10:20", "10:30", "10:40", "10:50",
                                                                        "11:00")]


def test_facts_sessions_gap_of_exactly_five_minutes_joins():
    got = [(s.key, ref.fmt_ms(s.start)[11:19], ref.fmt_ms(s.end)[11:19], s.orders) for s in ref.sessions(FACTS)]
    assert sorted(got) == sorted([
        ("A", "09:01:35", "09:15:00", 3),  # 09:01:35 -> 09:06:35 is exactly 5 min: one session
        ("A", "09:25:00", "09:30:00", 1), ("A", "09:59:59", "10:04:59", 1),
        ("B", "09:03:00", "09:08:00", 1), ("B", "09:08:01", "09:13:01", 1),  # 5 min 1 s apart: split
        ("C", "09:12:00", "09:17:00", 1), ("B", "09:31:00", "09:36:00", 1), ("C", "09:44:59", "09:49:59", 1),
        ("B", "10:05:00", "10:10:00", 1),
    ])
    # without PARTITION BY: 6 global sessions, the first 09:01:35-09:17:00 with 6 rows
    overall = ref.sessions(FACTS, by_shop=False)
    assert len(overall) == 6
    assert (ref.fmt_ms(overall[0].start)[11:19], ref.fmt_ms(overall[0].end)[11:19], overall[0].orders) == (
        "09:01:35", "09:17:00", 6)


def test_facts_top_shops_per_ten_minutes():
    got = [(ref.fmt_ms(r.window[0])[11:16], r.key, r.value, r.orders, r.rn) for r in ref.top_shops(FACTS)]
    assert got == [("09:00", "B", Decimal("50.00"), 2, 1), ("09:00", "A", Decimal("15.00"), 2, 2),
                   ("09:10", "C", Decimal("50.00"), 1, 1), ("09:10", "A", Decimal("7.00"), 1, 2),
                   ("09:20", "A", Decimal("12.00"), 1, 1), ("09:30", "B", Decimal("8.00"), 1, 1),
                   ("09:40", "C", Decimal("40.00"), 1, 1), ("09:50", "A", Decimal("25.00"), 1, 1),
                   ("10:00", "B", Decimal("60.00"), 1, 1)]


def test_facts_top_orders_per_thirty_minutes():
    got = [(ref.fmt_ms(r.window[0])[11:16], r.key, r.value, r.rn) for r in ref.top_orders(FACTS)]
    assert got == [("09:00", "6", Decimal("50.00"), 1), ("09:00", "4", Decimal("30.00"), 2),
                   ("09:00", "2", Decimal("20.00"), 3), ("09:30", "9", Decimal("40.00"), 1),
                   ("09:30", "10", Decimal("25.00"), 2), ("09:30", "8", Decimal("8.00"), 3),
                   ("10:00", "11", Decimal("60.00"), 1)]


def test_facts_report():
    assert ref.expected_report(FACTS) == {
        "orders": 11, "tumble_windows": 7, "hop_windows": 13, "hop_orders_total": 22, "cumulate_windows": 12,
        "cumulate_windows_per_start": 6, "sessions": 9, "longest_session_s": 805,  # A: 09:01:35-09:15:00
        "top_shops_rows": 9, "top_orders_rows": 7,
    }


# ---- rules ----------------------------------------------------------------------------------------------------------


def test_windows_are_epoch_aligned():
    ts = _t("09:01:35", "2024-01-01")
    assert ref.fmt_ms(ref.tumble_start(ts, 10 * MIN))[11:] == "09:00:00.000"
    assert ref.fmt_ms(ref.tumble_start(ts, 10 * MIN, offset=MIN))[11:] == "09:01:00.000"
    assert ref.fmt_ms(ref.tumble_start(ts, 10 * MIN, offset=-2 * MIN))[11:] == "08:58:00.000"
    assert [ref.fmt_ms(s)[11:16] for s, _ in ref.hop_windows(ts, 5 * MIN, 15 * MIN)] == ["08:50", "08:55", "09:00"]


def test_reversed_hop_and_cumulate_are_rejected_like_flink():
    with pytest.raises(ref.WindowArgumentError, match="size must be an integral multiple of slide"):
        ref.hop_agg(FACTS, slide=10 * MIN, size=5 * MIN)
    with pytest.raises(ref.WindowArgumentError, match="maxSize must be an integral multiple of step"):
        ref.cumulate_agg(FACTS, step=ref.HOUR, size=10 * MIN)


def test_cumulate_windows_of_one_row():
    ts = _t("09:25:00", "2024-01-01")
    ends = [ref.fmt_ms(e)[11:16] for _, e in ref.cumulate_windows(ts, 10 * MIN, ref.HOUR)]
    assert ends == ["09:30", "09:40", "09:50", "10:00"]  # only the windows ending after the row


def test_ties_are_found_at_the_top_n_cut():
    orders = ref.parse_rows([
        ("1", "A", "10.00", "2024-01-01 09:01:00"), ("2", "B", "7.00", "2024-01-01 09:02:00"),
        ("3", "C", "7.00", "2024-01-01 09:03:00"),  # B and C tie for 2nd: the top 2 depends on chance
        ("4", "A", "5.00", "2024-01-01 09:11:00"), ("5", "B", "4.00", "2024-01-01 09:12:00"),
        ("6", "C", "4.00", "2024-01-01 09:13:00"),  # B and C tie for 2nd/3rd in 09:10 too
        ("7", "A", "9.00", "2024-01-01 09:21:00"), ("8", "B", "3.00", "2024-01-01 09:22:00"),
        ("9", "C", "3.00", "2024-01-01 09:23:00"),  # ... and in 09:20
        ("10", "A", "2.00", "2024-01-01 09:31:00"), ("11", "B", "1.00", "2024-01-01 09:32:00"),
    ])
    ties = ref.revenue_ties(orders, n=2)
    assert [(ref.fmt_ms(t.window[0])[11:16], t.keys, t.value) for t in ties] == [
        ("09:00", ("B", "C"), Decimal("7.00")), ("09:10", ("B", "C"), Decimal("4.00")),
        ("09:20", ("B", "C"), Decimal("3.00"))]
    # a tie below the cut changes nothing: top 1 of 09:00 is A alone
    assert ref.revenue_ties(orders, n=1) == []
    # amounts: 7.00 twice in the 30-minute window 09:00-09:30, inside the top 3
    assert [(t.keys, t.value) for t in ref.amount_ties(orders, n=3)] == [(("2", "3"), Decimal("7.00"))]
    assert ref.amount_ties(orders, n=1) == []
