"""The joins generator holds every case the lab relies on, at scale 1 and 10, sorted and deterministic."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flinklab.course.registry import get_lab
from flinklab.labs.joins import fixtures as fx
from flinklab.labs.joins import reference as ref
from flinklab.labs.joins.fixtures import ORDERS, RATES, SHIPMENTS, USERS, parse_time

FIXTURES_DIR = get_lab("joins").data_dir


@pytest.fixture(scope="module", params=[1, 10], ids=["scale1", "scale10"])
def generated(request):
    files = fx.generate(42, request.param)
    return request.param, files, ref.from_rows(files)


def test_volume_scales(generated):
    scale, files, _ = generated
    assert len(files[ORDERS]) == 120 * scale
    assert len(files[USERS]) == 40 * scale


def test_formats(generated):
    _, files, _ = generated
    stamp = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$")
    for name, col in ((USERS, 2), (ORDERS, 4), (SHIPMENTS, 2), (RATES, 2)):
        assert all(stamp.match(row[col]) for row in files[name]), name
    assert all(re.match(r"^\d+\.\d{2}$", row[3]) for row in files[ORDERS])
    assert all(re.match(r"^\d+\.\d{4}$", row[1]) for row in files[RATES])
    # DECIMAL(10,4) / DECIMAL(10,2) must hold every value
    assert all(len(row[1].replace(".", "")) <= 10 for row in files[RATES])
    assert len({row[0] for row in files[ORDERS]}) == len(files[ORDERS])
    assert len({row[0] for row in files[SHIPMENTS]}) == len(files[SHIPMENTS])


def test_each_file_sorted_by_its_time(generated):
    _, files, _ = generated
    for name, col in ((USERS, 2), (ORDERS, 4), (SHIPMENTS, 2), (RATES, 2)):
        times = [parse_time(row[col]) for row in files[name]]
        assert times == sorted(times), name


def test_missing_users_order(generated):
    _, _, data = generated
    known = {u.user_id for u in data.users}
    assert not known & set(fx.MISSING_USERS)
    ordered_by_missing = Counter(o.user_id for o in data.orders if o.user_id not in known)
    assert set(ordered_by_missing) == set(fx.MISSING_USERS)


def test_users_who_sign_up_after_their_order(generated):
    scale, _, data = generated
    signup = {u.user_id: u.signup_time for u in data.users}
    late = {o.user_id for o in data.orders if o.user_id in signup and signup[o.user_id] > o.order_time}
    assert len(late) >= 3 * scale
    assert all(signup[u].hour >= 12 for u in late)  # afternoon signups


def _delays(data: ref.JoinsData) -> dict[str, list[int]]:
    order_time = {o.order_id: o.order_time for o in data.orders}
    delays = defaultdict(list)
    for s in data.shipments:
        delays[s.order_id].append(int((s.ship_time - order_time[s.order_id]).total_seconds()))
    return delays


def test_shipment_boundaries(generated):
    scale, _, data = generated
    all_delays = Counter(d for ds in _delays(data).values() for d in ds)
    assert all_delays[0] >= scale
    assert all_delays[7200] >= scale
    assert all_delays[7201] >= scale
    assert all_delays[-1] >= scale


def test_two_part_never_and_late_shipments(generated):
    scale, _, data = generated
    delays = _delays(data)
    two_parts = [o for o, ds in delays.items() if len([d for d in ds if 0 <= d <= 7200]) == 2]
    assert len(two_parts) >= scale
    assert len(ref.never_shipped(data)) >= 10 * scale
    late_only = [o for o, ds in delays.items() if all(d > 7200 for d in ds)]
    assert len(late_only) >= 2 * scale
    before_only = [o for o, ds in delays.items() if all(d < 0 for d in ds)]
    assert before_only


def test_rate_versions(generated):
    _, _, data = generated
    per_currency = Counter(r.currency for r in data.rates)
    for currency in ("USD", "EUR", "JPY"):
        assert per_currency[currency] >= 3
    # no two versions of one currency in the same second (the dedup and the temporal join would be ambiguous)
    assert len({(r.currency, r.update_time) for r in data.rates}) == len(data.rates)
    # consecutive versions differ, so the version used is visible in the result
    by_currency = defaultdict(list)
    for r in data.rates:
        by_currency[r.currency].append(r.rate)
    for values in by_currency.values():
        assert all(a != b for a, b in zip(values, values[1:], strict=False))


def test_rate_changes_in_the_same_second_as_an_order(generated):
    _, _, data = generated
    changes = {(r.currency, r.update_time) for r in data.rates}
    same_second = {o.currency for o in data.orders if (o.currency, o.order_time) in changes}
    assert {"USD", "EUR", "JPY"} <= same_second
    # the temporal reference uses that new version
    rate_at = {(r.currency, r.update_time): r.rate for r in data.rates}
    joined = ref.temporal(data)
    for o in data.orders:
        if (o.currency, o.order_time) in rate_at:
            assert joined[o.order_id][1] == rate_at[(o.currency, o.order_time)]


def test_orders_before_their_currencys_first_rate(generated):
    _, _, data = generated
    first = {}
    for r in data.rates:
        first.setdefault(r.currency, r.update_time)
    early = Counter(o.currency for o in data.orders if o.order_time < first[o.currency])
    for currency in ("USD", "EUR", "JPY"):
        assert early[currency] >= 2
    assert len(ref.temporal(data)) == len(data.orders) - sum(early.values())


def test_per_tier_results_are_distinct(generated):
    _, _, data = generated
    tiers = ref.per_tier(data)
    assert set(tiers) == set(fx.TIERS)
    assert len({n for n, _ in tiers.values()}) == 3
    assert len({a for _, a in tiers.values()}) == 3


def test_latest_and_temporal_differ_for_usd(generated):
    _, _, data = generated
    assert abs(ref.report(data)["usd_gap_krw"]) > 1


def test_deterministic_per_seed():
    assert fx.generate(42, 2) == fx.generate(42, 2)
    assert fx.generate(42, 1) != fx.generate(43, 1)


def test_scale_must_be_positive():
    with pytest.raises(ValueError):
        fx.generate(42, 0)


def test_committed_fixtures_are_the_default_output():
    from flinklab.lab_api import render_csv
    from flinklab.labs.joins import LAB

    generated = fx.generate(LAB.fixtures.default_seed, 1)
    for name in LAB.fixtures.files:
        assert (FIXTURES_DIR / name).read_text(encoding="utf-8") == render_csv(generated[name]), name


def test_interval_cases_seen_by_reference(generated):
    _, _, data = generated
    delays = {d for _, _, d in ref.interval_rows(data)}
    assert 0 in delays and 7200 in delays and 7201 not in delays and -1 not in delays
    assert ref.interval_rows(data, include_upper=False) < ref.interval_rows(data)
    unshipped = {order_id for order_id, _ in ref.unshipped(data)}
    never = ref.never_shipped(data)
    assert never < unshipped  # never shipped ones are in
    assert len(unshipped - never) >= 3  # shipped late (incl. 7201 s) or only before the order


# ---- the cases that separate the right query from its near misses, at every seed and scale -------------------

def _per_shipment_unshipped(data: ref.JoinsData) -> set[str]:
    """What an unshipped query that tests each shipment instead of each order lists: the orders never shipped and
    every order with some shipment outside [order_time, order_time + 2 h], even when another one is inside."""
    outside = {o for o, ds in _delays(data).items() if any(not 0 <= d <= 7200 for d in ds)}
    return ref.never_shipped(data) | outside


def _separating_cases(files) -> None:
    data = ref.from_rows(files)
    days = sorted({o.order_time.date() for o in data.orders})
    day_of = {o.order_id: o.order_time.date() for o in data.orders}
    per_day: dict[str, Counter] = defaultdict(Counter)
    for order_id, ds in _delays(data).items():
        inside = [d for d in ds if 0 <= d <= 7200]
        outside = [d for d in ds if not 0 <= d <= 7200]
        if any(d < 7200 for d in inside) and 7201 in outside:
            per_day["inside and 1 s past 2 h"][day_of[order_id]] += 1
        if 7200 in inside and 7201 in outside:
            per_day["exactly 2 h and 1 s past it"][day_of[order_id]] += 1
        for d in ds:
            if len(ds) == 1 and d in (0, 7200, 7201, -1):
                per_day[f"only shipment at {d} s"][day_of[order_id]] += 1
    rate_at = {(r.currency, r.update_time) for r in data.rates}
    for o in data.orders:
        if (o.currency, o.order_time) in rate_at:
            per_day[f"{o.currency} rate changed in the order's second"][o.order_time.date()] += 1
    for case in ("inside and 1 s past 2 h", "exactly 2 h and 1 s past it", "only shipment at 0 s",
                 "only shipment at 7200 s", "only shipment at 7201 s", "only shipment at -1 s",
                 "USD rate changed in the order's second", "EUR rate changed in the order's second",
                 "JPY rate changed in the order's second"):
        assert all(per_day[case][day] >= 1 for day in days), (case, per_day[case])
    # so the near misses cannot win by luck: each gives other rows and another count than the reference
    right = {order_id for order_id, _ in ref.unshipped(data)}
    per_shipment = _per_shipment_unshipped(data)
    assert per_shipment > right and len(per_shipment) - len(right) >= 2 * len(days)
    less_than = {order_id for order_id, _ in ref.unshipped(data, include_upper=False)}
    assert less_than > right and len(less_than) - len(right) >= 2 * len(days)
    assert ref.interval_rows(data, include_upper=False) < ref.interval_rows(data)


@pytest.mark.parametrize("seed", [1, 2, 3, 42])
@pytest.mark.parametrize("scale", [1, 10])
def test_separating_cases_are_planted(seed, scale):
    _separating_cases(fx.generate(seed, scale))


@given(seed=st.integers(min_value=0, max_value=2**32), scale=st.integers(min_value=1, max_value=4))
@settings(max_examples=30, deadline=None)
def test_separating_cases_are_planted_at_any_seed(seed, scale):
    _separating_cases(fx.generate(seed, scale))


def test_an_order_with_a_shipment_on_each_side_of_the_bound_counts_as_shipped():
    # the reference counts an order as shipped as soon as one shipment is inside, whatever its others
    files = fx.generate(42, 1)
    data = ref.from_rows(files)
    both = [o for o, ds in _delays(data).items() if any(0 <= d <= 7200 for d in ds) and any(d > 7200 for d in ds)]
    assert len(both) == 2
    unshipped = {order_id for order_id, _ in ref.unshipped(data)}
    assert not set(both) & unshipped
    rows = ref.interval_rows(data)
    assert all(sum(1 for r in rows if r[0] == o) == 1 for o in both)  # one interval row each: the one inside
