"""Grade the joins lab: its check table (flinklab.grading.spec) and the diagnoses that need code.

Checks read only files (the `.out` files, the plan JSONs, report.json) and the CSVs; they never ask the cluster.
Every failure says what was expected and what was found, and names the likely mistake. The checks over compiled
plans are code (`plan_checks`): they read JSON plans, not result tables.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import timedelta
from decimal import Decimal
from typing import Any

from flinklab.lab_api import (
    Changelog,
    Code,
    Compared,
    GradingContext,
    Judge,
    LabChecks,
    ReportSpec,
    Rows,
    StepSpec,
    StepView,
    Verdict,
    WholeNumbers,
    Wording,
    added_rows,
    as_decimal,
    as_int,
    as_timestamp,
    compare_rows,
    final_rows,
    format_number,
    numbers_close,
    ok,
    read_step,
    saved_sql,
    wrong,
)
from flinklab.labs.joins import reference as ref
from flinklab.labs.joins.plan_checks import plan_checks, reference_ddl
from flinklab.labs.joins.report import INTEGER_FIELDS, REPORT_FIELDS, SOURCES, build_report

TOLERANCE = Decimal("0.01")

LT_HINT = "`<` instead of BETWEEN drops the shipments exactly 2 h after the order: BETWEEN includes both ends."
LT_UNSHIPPED_HINT = ("`<` instead of BETWEEN lists the orders shipped exactly 2 h later as unshipped: BETWEEN includes "
                     "both ends.")
PER_SHIPMENT_HINT = (
    "Orders shipped within 2 h are listed because another of their shipments came outside them (e.g. {order}): "
    "the condition tests each shipment instead of each order. An order is unshipped when no shipment at all "
    "matches ON (order_id and s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '2' HOUR); keep only "
    "s.ship_id IS NULL in WHERE.")
NO_AS_OF = "FOR SYSTEM_TIME AS OF missing — latest rates used: join rates_v FOR SYSTEM_TIME AS OF o.order_time AS r."
STREAMING = "Run {step}.sql in streaming mode: SET 'execution.runtime-mode' = 'streaming';"
NO_PRIMARY_KEY = (
    "FOR SYSTEM_TIME AS OF on a table without a primary key, e.g. rates itself: an append-only table has no "
    "versions. Join the versioned view instead, rates_v (the latest row per currency: ROW_NUMBER() OVER (PARTITION "
    "BY currency ORDER BY update_time DESC) = 1), FOR SYSTEM_TIME AS OF o.order_time.")
#: What Flink's error reasons mean in this lab (grading.outputs.hint_for_error).
ERROR_HINTS = ((("Temporal Table Join requires primary key in versioned table",), NO_PRIMARY_KEY),)

# The lesson of the join kinds: interval, outer interval and temporal joins are append-only (a row, once out, is
# never corrected), regular and latest joins are updating. A different kind of join can fold to the right rows,
# so the kind is its own check, and its hint names the join the step asks for.
INTERVAL_KIND = Changelog(
    "insert-only", 1, "Updates mean a regular join: the step asks for an interval join, whose bound is on the time "
    "attributes themselves in ON (s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '2' HOUR).",
    why="an interval join emits each match once and never corrects it", batch_hint=STREAMING.format(step="interval"))
UNSHIPPED_KIND_HINT = (
    "-D rows mean a regular outer join (it emits an order NULL-padded at once and retracts it when a shipment "
    "arrives): the step asks for an outer interval join, with s.ship_time BETWEEN o.order_time AND o.order_time + "
    "INTERVAL '2' HOUR on the time attributes in ON, so each unshipped order comes out once.")
# the ON condition of the join with shipments: up to the next clause
_ON_SHIPMENTS = re.compile(r"\bJOIN\s+[`\"]?shipments\b.*?\bON\b(.+?)(?=\bWHERE\b|\bGROUP\b|\bJOIN\b|;|\Z)",
                           re.IGNORECASE | re.DOTALL)


def _outer_join_bound(view: StepView) -> str | None:
    """The unshipped kind's hint naming what the saved SQL's ON has in place of a bound on the time attributes."""
    found = _ON_SHIPMENTS.search(saved_sql(view.ctx, f"{view.step}.sql") or "")
    if found is None:
        return None
    on = " ".join(found.group(1).split())
    if re.search(r"\bTIMESTAMPDIFF\s*\(", on, re.IGNORECASE):
        named = ("The bound in ON is on TIMESTAMPDIFF(...), which the planner cannot read as an interval between "
                 "the two time attributes")
    elif not re.search(r"\bship_time\b", on, re.IGNORECASE):
        named = f"ON has no time condition (ON {on})"
    else:
        return None
    asks = UNSHIPPED_KIND_HINT.split(": ", 1)[1]  # what the step asks for, as its own sentence (SQL case kept)
    return (f"{named}, so this is a regular outer join: it emits an order NULL-padded at once and retracts it (-D) "
            f"when a shipment arrives. {asks[0].upper()}{asks[1:]}")


def _regular_outer_join(view: StepView) -> Verdict | None:
    """A regular outer join in unshipped.sql (no bound on the time attributes in ON) fails the insert-only check
    even when this run printed +I rows only: it retracts a NULL-padded order only when the order was read before
    its shipment, which depends on how Flink interleaves the two files."""
    named = _outer_join_bound(view)
    if named is None or view.updates():
        return None  # an interval join, or the retractions are there for the changelog check to report
    return Verdict(False, "expected an outer interval join (insert-only by construction); found a regular outer "
                   "join in unshipped.sql, whose +I rows only in this run depend on the order Flink read the files.",
                   named)


UNSHIPPED_KIND = Changelog(
    "insert-only", 1, UNSHIPPED_KIND_HINT,
    why="an outer interval join emits each NULL-padded order once, when the watermark passes order_time + 2 h",
    batch_hint=STREAMING.format(step="unshipped"), diagnose=_outer_join_bound, guard=_regular_outer_join)
TEMPORAL_KIND = Changelog(
    "insert-only", 1, "Updates mean a regular join against rates_v, which corrects past orders at every rate change: "
    "the step asks for an event-time temporal join, JOIN rates_v FOR SYSTEM_TIME AS OF o.order_time AS r.",
    why="a temporal join emits each order once, at the rate valid at its order_time",
    batch_hint=STREAMING.format(step="temporal"))


# ---- the diagnoses: which mistake explains a wrong row set ----------------------------------------------------


def _regular_hint(c: Compared) -> str | None:
    data: ref.JoinsData = c.data
    left = [(t, n, a) for t, (n, a) in ref.per_tier(data, left_join=True).items()]
    if any(r[0] is None for r in c.found) or c.equals(left):
        users = {u.user_id for u in data.users}
        missing_users = ", ".join(sorted({o.user_id for o in data.orders if o.user_id not in users}))
        return (f"A LEFT join counts the orders of users not in users ({missing_users}) under a NULL tier: "
                "use an inner JOIN.")
    if c.equals(_late_signups_dropped(data)):
        return ("Orders of users who signed up after ordering are missing: a regular join has no time condition; "
                "drop any condition on signup_time.")
    return None


def _late_signups_dropped(data: ref.JoinsData) -> list[tuple]:
    """Per tier (tier, orders, amount) without the orders placed before their user signed up."""
    signup = {u.user_id: u for u in data.users}
    kept = [o for o in data.orders if o.user_id in signup and signup[o.user_id].signup_time <= o.order_time]
    totals: dict[str, tuple[int, Decimal]] = {}
    for o in kept:
        tier = signup[o.user_id].tier
        n, a = totals.get(tier, (0, Decimal(0)))
        totals[tier] = (n + 1, a + o.amount)
    return [(t, n, a) for t, (n, a) in totals.items()]


def _outside(delays: list[int | None]) -> str | None:
    """The delays outside [0 s, 7200 s] as a learner's query gave them ("from -1 s to 22487 s"), or None."""
    outside = sorted(d for d in delays if d is not None and not 0 <= d <= 7200)
    if not outside:
        return None
    return f"{len(outside)} with delay_s {outside[0]} s" if len(outside) == 1 else \
        f"{len(outside)} with delay_s from {outside[0]} s to {outside[-1]} s"


def _no_bound_hint(outside: str) -> str:
    return (f"Rows outside [0 s, 7200 s] joined ({outside}): the time bound is missing or wrong, and a join without "
            "one is a regular join that keeps every shipment, however early or late. Bound it in ON: s.ship_time "
            "BETWEEN o.order_time AND o.order_time + INTERVAL '2' HOUR.")


def _interval_hint(c: Compared) -> str | None:
    outside = _outside([as_int(r[2]) for r in c.found])
    return None if outside is None else _no_bound_hint(outside)


def _boundaries(view: StepView) -> Verdict:
    """Both ends of the 2 h bound are in (delay_s 0 and 7200), nothing beyond it."""
    delays = [as_int(r[2]) for r in view.rows()]
    problems = []
    if 0 not in delays:
        problems.append("no row with delay_s 0")
    if 7200 not in delays:
        problems.append("no row with delay_s 7200")
    if any(d is not None and (d > 7200 or d < 0) for d in delays):
        problems.append("rows with delay_s outside 0..7200 (e.g. 7201)")
    if not problems:
        return ok()
    outside = _outside(delays)
    hint = LT_HINT if problems == ["no row with delay_s 7200"] else _no_bound_hint(outside) if outside else \
        "The bound is ship_time BETWEEN order_time AND order_time + INTERVAL '2' HOUR (both ends included)."
    return wrong("expected delay_s 0 and 7200 present and nothing above 7200 or below 0; "
                 f"found {'; '.join(problems)}.", hint)


def _unshipped_hint(c: Compared) -> str | None:
    if not c.found:
        return ("Time condition in WHERE: it rejects the NULL-padded rows (the planner makes the LEFT join an inner "
                "one), so nothing is left. Put the BETWEEN condition in ON and keep only `IS NULL` in WHERE.")
    if {r[0] for r in c.found} == ref.never_shipped(c.data):
        return ("Only never-shipped orders: the time condition is missing from ON, so a late shipment still counts "
                "as shipped. Put ship_time BETWEEN order_time AND order_time + INTERVAL '2' HOUR in ON.")
    listed_though_shipped = sorted({str(r[0]) for r in c.found} & _shipped_and_also_outside(c.data))
    if listed_though_shipped:
        return PER_SHIPMENT_HINT.format(order=", ".join(listed_though_shipped[:3]))
    if any(as_timestamp(r[1]) is None for r in c.found):
        return "order_time must be the order's timestamp (SELECT o.order_id, o.order_time)."
    return None


def _shipped_and_also_outside(data: ref.JoinsData) -> set[str]:
    """Orders with a shipment inside [0 s, 7200 s) (so even `<` finds it) and another outside [0 s, 7200 s]: only a
    query that looks at each shipment instead of each order lists them as unshipped."""
    order_time = {o.order_id: o.order_time for o in data.orders}
    inside, outside = set(), set()
    for s in data.shipments:
        if s.order_id not in order_time:
            continue
        delay = s.ship_time - order_time[s.order_id]
        if timedelta(0) <= delay < ref.INTERVAL:
            inside.add(s.order_id)
        elif not timedelta(0) <= delay <= ref.INTERVAL:
            outside.add(s.order_id)
    return inside & outside


def _unshipped_facts(data: ref.JoinsData) -> Mapping[str, Any]:
    never = len(ref.never_shipped(data))
    return {"never": never, "late": len(ref.unshipped(data)) - never}


def _at_latest(view: StepView) -> bool:
    """The temporal rows are those at each currency's last rate (FOR SYSTEM_TIME AS OF left out)."""
    rows = [(o, c, r, k) for o, (c, r, k) in ref.at_latest_rate(view.data).items()]
    return compare_rows(rows, view.rows(), tolerance=TOLERANCE).ok


def _temporal_hint(c: Compared) -> str | None:
    if _at_latest(c.view) or {"-D", "-U"} & c.view.table.ops_seen():
        return NO_AS_OF
    if any(r[2] is None for r in c.found):
        return "Orders with a NULL rate: a LEFT temporal join keeps orders before the first rate; use JOIN."
    return None


def _same_second(view: StepView) -> Verdict:
    """The version with update_time == order_time is the one used."""
    found = {r.get("order_id"): r for r in view.final()}
    change_at = {(r.currency, r.update_time): r.rate for r in view.data.rates}
    same = [o for o in view.data.orders if (o.currency, o.order_time) in change_at]
    wrong_ones = [(o.order_id, change_at[(o.currency, o.order_time)], (found.get(o.order_id) or {}).get("rate"))
                  for o in same if not numbers_close(change_at[(o.currency, o.order_time)],
                                                     (found.get(o.order_id) or {}).get("rate"), TOLERANCE)]
    if not wrong_ones:
        return ok()
    order_id, want, got = wrong_ones[0]
    hint = NO_AS_OF if _at_latest(view) else ("The version valid at order_time is the latest with update_time <= "
                                              "order_time, a change in the same second included.")
    return wrong(f"expected {len(same)} orders at the rate that changed in their second, e.g. {order_id} at "
                 f"{format_number(want)}; found {format_number(got)} ({len(wrong_ones)} wrong).", hint)


def _early_dropped(view: StepView) -> Verdict:
    """Orders before their currency's first rate have no version: an inner temporal join drops them."""
    found = {r.get("order_id") for r in view.final()}
    expected = ref.temporal(view.data)
    early = sorted(o.order_id for o in view.data.orders if o.order_id not in expected)
    kept = [o for o in early if o in found]
    if not kept:
        return ok()
    hint = NO_AS_OF if (_at_latest(view) or "-D" in view.table.ops_seen()) else \
        "An inner temporal join has no version for an order before the first rate: use JOIN, not LEFT JOIN."
    return wrong(f"expected the {len(early)} orders before their currency's first rate to be missing; found "
                 f"{len(kept)} of them, e.g. {', '.join(kept[:3])}.", hint)


def _temporal_totals(data: ref.JoinsData) -> list[tuple]:
    """Per currency (currency, orders, total_krw) of the temporal join: what latest.sql gives with AS OF kept."""
    by_currency: dict[str, tuple[int, Decimal]] = {}
    for c, _, krw in ref.temporal(data).values():
        n, t = by_currency.get(c, (0, Decimal(0)))
        by_currency[c] = (n + 1, t + krw)
    return [(c, n, t) for c, (n, t) in by_currency.items()]


# ---- report -------------------------------------------------------------------------------------------------------

def _intermediate_values(ctx: GradingContext) -> dict[str, list[float]]:
    """Values a learner gets by reading intermediate changelog rows instead of the final ones (for hints)."""
    values: dict[str, list[float]] = {"matched_orders": [], "usd_gap_krw": []}
    regular = read_step(ctx.workspace, "regular.out")
    if regular.ok and "orders" in regular.table.columns and regular.table.streaming:
        ordered = [as_int(r.get("orders")) or 0 for r in added_rows(regular.table)]
        values["matched_orders"] += [sum(ordered), len(regular.table.rows), len(ordered)]
    latest, temporal = read_step(ctx.workspace, "latest.out"), read_step(ctx.workspace, "temporal.out")
    if latest.ok and temporal.ok and {"currency", "total_krw"} <= set(latest.table.columns) \
            and {"currency", "amount_krw"} <= set(temporal.table.columns):
        usd_temporal = sum((as_decimal(r.get("amount_krw")) or Decimal(0) for r in final_rows(temporal.table)
                            if r.get("currency") == "USD"), Decimal(0))
        usd_rows = [as_decimal(r.get("total_krw")) for r in added_rows(latest.table) if r.get("currency") == "USD"]
        values["usd_gap_krw"] += [float(v - usd_temporal) for v in usd_rows[:-1] if v is not None]
        values["usd_gap_krw"].append(float(sum((v for v in usd_rows if v is not None), Decimal(0)) - usd_temporal))
    return values


def _report_diagnosis(ctx: GradingContext) -> Callable[[str, Any, Mapping[str, Any]], str | None]:
    intermediate: dict[str, list[float]] = {}

    def hint_for(field: str, got: Any, expected: Mapping[str, Any]) -> str | None:
        if not intermediate:  # parse the outputs only when a value is wrong
            intermediate.update(_intermediate_values(ctx))
        if any(numbers_close(v, got, TOLERANCE) for v in intermediate.get(field, [])):
            return (f"Computed from intermediate rows of {SOURCES[field]} (all +I/-U/+U rows, or an early +U): "
                    "take only the last +I/+U per key.")
        return None

    return hint_for


# ---- the table -------------------------------------------------------------------------------------------------

CHECKS = LabChecks(
    lab="joins",
    load=ref.load,  # FlinklabError naming the file when the data cannot be read
    tolerance=TOLERANCE,
    reference_ddl=reference_ddl,
    wording=Wording(problem="expected the {step} result; {error}.", empty_set_has_columns=True,
                    error_hints=ERROR_HINTS),
    steps=(
        StepSpec("count", ("tbl", "n"), (
            Changelog("batch", 1, "count run in streaming mode: SET 'execution.runtime-mode' = 'batch';"),
            WholeNumbers("tbl", "n", ref.counts,
                         "COUNT(*) FROM {key}, with tbl = '{key}', in one UNION ALL query; check the path in ddl.sql "
                         "points at the whole CSV."),
        )),
        StepSpec("regular", ("tier", "orders", "amount"), (
            Rows("regular: per-tier orders and amount", 2,
                 lambda data: [(t, n, a) for t, (n, a) in ref.per_tier(data).items()],
                 "Inner JOIN orders and users ON user_id, GROUP BY tier; read the last +I/+U per tier.",
                 key=("tier",), message="expected per tier (tier, orders, amount): {diff_sentence}",
                 diagnose=_regular_hint),
            Changelog("updating", 1, "Run regular.sql in streaming mode: SET 'execution.runtime-mode' = 'streaming';",
                      why="each new order updates its tier"),
        )),
        StepSpec("interval", ("order_id", "ship_id", "delay_s"), (
            # sorted: the reference is a set, and a message's "e.g." rows must not follow the hash seed
            Rows("interval: rows (both ends of 2 h included)", 2, lambda data: sorted(ref.interval_rows(data)),
                 "JOIN shipments ON order_id AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '2' "
                 "HOUR.", tolerance=Decimal(0),
                 message="expected {n_expected} rows (order_id, ship_id, delay_s), found {n_found}: {diff_sentence}",
                 mistakes=((lambda data: ref.interval_rows(data, include_upper=False), LT_HINT),),
                 diagnose=_interval_hint),
            Judge("interval: boundaries (0 s and 7200 s in, 7201 s out)", 1, _boundaries),
            INTERVAL_KIND,
        )),
        StepSpec("unshipped", ("order_id", "order_time"), (
            Rows("unshipped: orders without a shipment within 2 h", 3, lambda data: sorted(ref.unshipped(data)),
                 "orders LEFT JOIN shipments ON order_id AND the time condition (both in ON), then WHERE s.ship_id "
                 "IS NULL.", tolerance=Decimal(0),
                 message="expected {n_expected} orders (never shipped: {never}, shipped late or only before the "
                 "order: {late}), found {n_found}: {diff_sentence}", facts=_unshipped_facts,
                 mistakes=((lambda data: sorted(ref.unshipped(data, include_upper=False)), LT_UNSHIPPED_HINT),),
                 diagnose=_unshipped_hint),
            UNSHIPPED_KIND,
        )),
        StepSpec("temporal", ("order_id", "currency", "rate", "amount_krw"), (
            Rows("temporal: rows at the rate valid at order time", 2,
                 lambda data: [(o, c, r, k) for o, (c, r, k) in ref.temporal(data).items()],
                 "JOIN rates_v FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency, with rates_v the "
                 "latest row per currency (ROW_NUMBER() ... ORDER BY update_time DESC = 1).",
                 message="expected {n_expected} rows (order_id, currency, rate, amount_krw), found {n_found}: "
                 "{diff_sentence}", diagnose=_temporal_hint),
            Judge("temporal: a rate changed in the same second as the order is used", 1, _same_second),
            Judge("temporal: orders before their currency's first rate dropped", 1, _early_dropped),
            TEMPORAL_KIND,
        )),
        StepSpec("latest", ("currency", "orders", "total_krw"), (
            Rows("latest: per-currency totals at the last rate", 2,
                 lambda data: [(c, n, t) for c, (n, t) in ref.latest(data).items()],
                 "JOIN rates_v r ON o.currency = r.currency (no FOR SYSTEM_TIME AS OF), GROUP BY currency.",
                 key=("currency",), message="expected per currency (currency, orders, total_krw): {diff_sentence}",
                 mistakes=((_temporal_totals, "FOR SYSTEM_TIME AS OF kept in latest.sql: these are the temporal "
                            "join's totals. Join rates_v without it, so every order ends at its currency's last "
                            "rate."),)),
            Changelog("updating", 1, "Run latest.sql in streaming mode and join rates_v without FOR SYSTEM_TIME AS OF.",
                      why="each rate change recomputes past orders"),
        )),
        Code(lambda ctx, data: plan_checks(ctx)),
    ),
    report=ReportSpec(
        REPORT_FIELDS, ref.report, SOURCES, integer_fields=INTEGER_FIELDS, tolerance=TOLERANCE,
        hint="Copy it from {source}: in a changelog the last +I/+U per key is the final value.",
        diagnose=_report_diagnosis, from_outputs=build_report, fields_phrase="the six fields", read_verb="Copy"),
)

#: What `Lab.checks` calls: every requirement of the joins lab, graded from the saved files against the CSVs.
checks = CHECKS
