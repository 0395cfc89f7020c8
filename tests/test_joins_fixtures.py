"""The joins generator holds every case the lab relies on, at scale 1 and 10, sorted and deterministic."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

import pytest

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
        assert all(a != b for a, b in zip(values, values[1:]))


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
    from flinklab.course.fixtures_io import render_csv
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
