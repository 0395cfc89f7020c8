"""Grade the joins lab: one check per requirement, each comparing the saved work with the plain-Python reference.

Checks read only files (the `.out` files, the plan JSONs, report.json) and the CSVs; they never ask the cluster.
Every failure says what was expected and what was found, and names the likely mistake.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from flinklab.grading.changelog import final_rows, fold_by_key
from flinklab.grading.checks import CheckResult, failed, passed
from flinklab.grading.context import GradingContext
from flinklab.grading.files import FileReadError
from flinklab.grading.outputs import StepChecks, format_number, read_step, run_hint
from flinklab.grading.parse import ResultTable
from flinklab.grading.plans import Plan, PlanError, dig, load_plan, state_entries
from flinklab.grading.report_checks import report_field_checks
from flinklab.grading.values import as_decimal, as_int, as_timestamp, clip, compare_rows, numbers_close
from flinklab.labs.joins import reference as ref
from flinklab.labs.joins.report import INTEGER_FIELDS, REPORT_FIELDS, plus_rows
from flinklab.version import FLINK_VERSION

TOLERANCE = Decimal("0.01")
PLAN_FILES = {"regular": "regular-plan.json", "interval": "interval-plan.json", "temporal": "temporal-plan.json"}


def _end(text: str) -> str:
    """A sentence end that does not double the dot after an ellipsis."""
    return text if text.endswith(".") else text + "."


class _Step(StepChecks):
    """A step's output plus the failure every check of that step reports when the output is unusable."""

    def __init__(self, ctx: GradingContext, step: str, columns: tuple[str, ...]):
        out = read_step(ctx.workspace, f"{step}.out")
        if not out.ok:
            hint = run_hint("joins", step) if out.missing else f"Fix {step}.sql and run the step again."
            super().__init__(out, step, columns, out.error + ".", hint)
            return
        if out.table is not None and not out.table.columns and not out.table.rows:
            # `Empty set` prints no header: an empty result with the lab's columns.
            out.table = ResultTable(columns=list(columns), rows=[], ops=out.table.ops,
                                    footer_rows=out.table.footer_rows)
        super().__init__(out, step, columns)


# ---- count ---------------------------------------------------------------------------------------------------


def _count_checks(ctx: GradingContext, data: ref.JoinsData) -> list[CheckResult]:
    step = _Step(ctx, "count", ("tbl", "n"))
    results = []
    name = "count: batch result (no op column)"
    if (bad := step.unusable(name, 1)) is not None:
        results.append(bad)
    elif step.table.streaming:
        results.append(failed(
            name, 1, "expected a batch table (final rows only, no op column); found a streaming changelog "
            f"with op column ({', '.join(sorted(step.table.ops_seen()))}).",
            "count run in streaming mode: SET 'execution.runtime-mode' = 'batch';", step="count"))
    else:
        results.append(passed(name, 1, step="count"))
    expected = ref.counts(data)
    found = {} if step.problem else fold_by_key(step.table, ["tbl"])
    for table, n in expected.items():
        name = f"count: {table}"
        if (bad := step.unusable(name, 1)) is not None:
            results.append(bad)
            continue
        row = found.get((table,))
        got = as_int(row.get("n")) if row else None
        if got == n:
            results.append(passed(name, 1, step="count"))
        else:
            if row is None:
                what = f"no row {table!r}"
            elif got is None:  # say what was there, not "None"
                raw = row.get("n")
                what = "n = NULL" if raw is None else f"n = {clip(repr(raw))}, which is not a whole number"
            else:
                what = str(got)
            results.append(failed(
                name, 1, f"expected {table} n = {n}; found {what}.",
                f"COUNT(*) FROM {table}, with tbl = '{table}', in one UNION ALL query; check the path in ddl.sql "
                "points at the whole CSV.", step="count"))
    return results


# ---- regular -------------------------------------------------------------------------------------------------


def _regular_checks(ctx: GradingContext, data: ref.JoinsData) -> list[CheckResult]:
    step = _Step(ctx, "regular", ("tier", "orders", "amount"))
    results = []
    name = "regular: per-tier orders and amount"
    if (bad := step.unusable(name, 2)) is not None:
        results.append(bad)
    else:
        final = fold_by_key(step.table, ["tier"])
        found = {k[0]: (v.get("orders"), v.get("amount")) for k, v in final.items()}
        expected = ref.per_tier(data)
        diff = compare_rows([(t, n, a) for t, (n, a) in expected.items()],
                            [(t, n, a) for t, (n, a) in found.items()], tolerance=TOLERANCE)
        if diff.ok:
            results.append(passed(name, 2, step="regular"))
        else:
            hint = "Inner JOIN orders and users ON user_id, GROUP BY tier; read the last +I/+U per tier."
            left = ref.per_tier(data, left_join=True)
            missing_users = ", ".join(sorted({o.user_id for o in data.orders if o.user_id not in
                                              {u.user_id for u in data.users}}))
            if None in found or compare_rows([(t, n, a) for t, (n, a) in left.items()],
                                             [(t, n, a) for t, (n, a) in found.items()], tolerance=TOLERANCE).ok:
                hint = (f"A LEFT join counts the orders of users not in users ({missing_users}) under a NULL tier: "
                        "use an inner JOIN.")
            elif _late_signups_dropped(data, found):
                hint = ("Orders of users who signed up after ordering are missing: a regular join has no time "
                        "condition; drop any condition on signup_time.")
            results.append(failed(name, 2, f"expected per tier (tier, orders, amount): {_end(diff.describe())}"
                                  + step.truncated_note(), hint, step="regular"))
    name = "regular: updating result (-U seen)"
    if (bad := step.unusable(name, 1)) is not None:
        results.append(bad)
    elif "-U" in step.table.ops_seen():
        results.append(passed(name, 1, step="regular"))
    else:
        mode = "a batch table (no op column)" if not step.table.streaming else \
            f"ops {', '.join(sorted(step.table.ops_seen())) or 'none'}"
        results.append(failed(name, 1, f"expected -U rows (each new order updates its tier); found {mode}.",
                              "Run regular.sql in streaming mode: SET 'execution.runtime-mode' = 'streaming';",
                              step="regular"))
    return results


def _late_signups_dropped(data: ref.JoinsData, found: dict) -> bool:
    signup = {u.user_id: u for u in data.users}
    kept = [o for o in data.orders if o.user_id in signup and signup[o.user_id].signup_time <= o.order_time]
    expected = {}
    for o in kept:
        tier = signup[o.user_id].tier
        n, a = expected.get(tier, (0, Decimal(0)))
        expected[tier] = (n + 1, a + o.amount)
    return compare_rows([(t, n, a) for t, (n, a) in expected.items()],
                        [(t, n, a) for t, (n, a) in found.items()], tolerance=TOLERANCE).ok


# ---- interval and unshipped ------------------------------------------------------------------------------------


def _interval_checks(ctx: GradingContext, data: ref.JoinsData) -> list[CheckResult]:
    step = _Step(ctx, "interval", ("order_id", "ship_id", "delay_s"))
    expected = sorted(ref.interval_rows(data))  # a set: sorted, so a message's "e.g." rows do not follow the hash seed
    results = []
    name = "interval: rows (both ends of 2 h included)"
    if (bad := step.unusable(name, 2)) is not None:
        return [bad, failed("interval: boundaries (0 s and 7200 s in, 7201 s out)", 1, step.problem, step.hint,
                            step="interval")]
    found = [(r.get("order_id"), r.get("ship_id"), r.get("delay_s")) for r in final_rows(step.table)]
    diff = compare_rows(expected, found, tolerance=0)
    strict = ref.interval_rows(data, include_upper=False)
    lt_hint = "`<` instead of BETWEEN drops the shipments exactly 2 h after the order: BETWEEN includes both ends."
    if diff.ok:
        results.append(passed(name, 2, step="interval"))
    else:
        hint = "JOIN shipments ON order_id AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '2' HOUR."
        if compare_rows(strict, found, tolerance=0).ok:
            hint = lt_hint
        elif any((as_int(r[2]) or 0) > 7200 or (as_int(r[2]) or 0) < 0 for r in found):
            hint = ("Rows outside [0 s, 7200 s] joined: the time bound is missing or wrong (a regular join keeps "
                    "every shipment).")
        results.append(failed(name, 2, f"expected {len(expected)} rows (order_id, ship_id, delay_s), found "
                              f"{len(found)}: {_end(diff.describe())}" + step.truncated_note(), hint, step="interval"))
    name = "interval: boundaries (0 s and 7200 s in, 7201 s out)"
    delays = [as_int(r[2]) for r in found]
    problems = []
    if 0 not in delays:
        problems.append("no row with delay_s 0")
    if 7200 not in delays:
        problems.append("no row with delay_s 7200")
    if any(d is not None and (d > 7200 or d < 0) for d in delays):
        problems.append("rows with delay_s outside 0..7200 (e.g. 7201)")
    if not problems:
        results.append(passed(name, 1, step="interval"))
    else:
        hint = lt_hint if problems == ["no row with delay_s 7200"] else \
            "The bound is ship_time BETWEEN order_time AND order_time + INTERVAL '2' HOUR (both ends included)."
        results.append(failed(name, 1, "expected delay_s 0 and 7200 present and nothing above 7200 or below 0; "
                              f"found {'; '.join(problems)}.", hint, step="interval"))
    return results


def _unshipped_checks(ctx: GradingContext, data: ref.JoinsData) -> list[CheckResult]:
    step = _Step(ctx, "unshipped", ("order_id", "order_time"))
    name = "unshipped: orders without a shipment within 2 h"
    if (bad := step.unusable(name, 3)) is not None:
        return [bad]
    expected = sorted(ref.unshipped(data))  # sorted: see _interval_checks
    found = [(r.get("order_id"), r.get("order_time")) for r in final_rows(step.table)]
    diff = compare_rows(expected, found, tolerance=0)
    if diff.ok:
        return [passed(name, 3, step="unshipped")]
    never = ref.never_shipped(data)
    found_ids = {r[0] for r in found}
    hint = ("orders LEFT JOIN shipments ON order_id AND the time condition (both in ON), then WHERE s.ship_id IS "
            "NULL.")
    if not found:
        hint = ("Time condition in WHERE: it rejects the NULL-padded rows (the planner makes the LEFT join an inner "
                "one), so nothing is left. Put the BETWEEN condition in ON and keep only `IS NULL` in WHERE.")
    elif found_ids == never:
        hint = ("Only never-shipped orders: the time condition is missing from ON, so a late shipment still "
                "counts as shipped. Put ship_time BETWEEN order_time AND order_time + INTERVAL '2' HOUR in ON.")
    elif any(as_timestamp(r[1]) is None for r in found):
        hint = "order_time must be the order's timestamp (SELECT o.order_id, o.order_time)."
    return [failed(name, 3, f"expected {len(expected)} orders (never shipped: {len(never)}, shipped late or only "
                   f"before the order: {len(expected) - len(never)}), found {len(found)}: {_end(diff.describe())}"
                   + step.truncated_note(), hint, step="unshipped")]


# ---- temporal and latest ---------------------------------------------------------------------------------------


def _temporal_checks(ctx: GradingContext, data: ref.JoinsData) -> list[CheckResult]:
    step = _Step(ctx, "temporal", ("order_id", "currency", "rate", "amount_krw"))
    names = [("temporal: rows at the rate valid at order time", 2),
             ("temporal: a rate changed in the same second as the order is used", 1),
             ("temporal: orders before their currency's first rate dropped", 1)]
    if step.problem:
        return [failed(n, p, step.problem, step.hint, step="temporal") for n, p in names]
    expected = ref.temporal(data)
    final = final_rows(step.table)
    found = {r.get("order_id"): r for r in final}
    rows = [(r.get("order_id"), r.get("currency"), r.get("rate"), r.get("amount_krw")) for r in final]
    diff = compare_rows([(o, c, r, k) for o, (c, r, k) in expected.items()], rows, tolerance=TOLERANCE)
    latest_rows = ref.at_latest_rate(data)
    at_latest = compare_rows([(o, c, r, k) for o, (c, r, k) in latest_rows.items()], rows, tolerance=TOLERANCE).ok
    no_as_of = ("FOR SYSTEM_TIME AS OF missing — latest rates used: join rates_v FOR SYSTEM_TIME AS OF "
                "o.order_time AS r.")
    results = []
    name, points = names[0]
    if diff.ok:
        results.append(passed(name, points, step="temporal"))
    else:
        if at_latest or "-D" in step.table.ops_seen() or "-U" in step.table.ops_seen():
            hint = no_as_of
        elif any(r.get("rate") is None for r in final):
            hint = "Orders with a NULL rate: a LEFT temporal join keeps orders before the first rate; use JOIN."
        else:
            hint = ("JOIN rates_v FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency, with rates_v "
                    "the latest row per currency (ROW_NUMBER() ... ORDER BY update_time DESC = 1).")
        results.append(failed(name, points, f"expected {len(expected)} rows (order_id, currency, rate, amount_krw), "
                               f"found {len(rows)}: {_end(diff.describe())}" + step.truncated_note(), hint,
                               step="temporal"))
    # The same-second cases: the version with update_time == order_time must be the one used.
    name, points = names[1]
    change_at = {(r.currency, r.update_time): r.rate for r in data.rates}
    same = [o for o in data.orders if (o.currency, o.order_time) in change_at]
    wrong = [(o.order_id, change_at[(o.currency, o.order_time)], (found.get(o.order_id) or {}).get("rate"))
             for o in same if not numbers_close(change_at[(o.currency, o.order_time)],
                                                (found.get(o.order_id) or {}).get("rate"), TOLERANCE)]
    if not wrong:
        results.append(passed(name, points, step="temporal"))
    else:
        order_id, want, got = wrong[0]
        hint = no_as_of if at_latest else ("The version valid at order_time is the latest with update_time <= "
                                           "order_time, a change in the same second included.")
        results.append(failed(name, points, f"expected {len(same)} orders at the rate that changed in their second, "
                              f"e.g. {order_id} at {format_number(want)}; found {format_number(got)} "
                              f"({len(wrong)} wrong).", hint, step="temporal"))
    name, points = names[2]
    early = sorted(o.order_id for o in data.orders if o.order_id not in expected)
    kept = [o for o in early if o in found]
    if not kept:
        results.append(passed(name, points, step="temporal"))
    else:
        hint = no_as_of if (at_latest or "-D" in step.table.ops_seen()) else \
            "An inner temporal join has no version for an order before the first rate: use JOIN, not LEFT JOIN."
        results.append(failed(name, points, f"expected the {len(early)} orders before their currency's first rate "
                              f"to be missing; found {len(kept)} of them, e.g. {', '.join(kept[:3])}.", hint,
                              step="temporal"))
    return results


def _latest_checks(ctx: GradingContext, data: ref.JoinsData) -> list[CheckResult]:
    step = _Step(ctx, "latest", ("currency", "orders", "total_krw"))
    name = "latest: per-currency totals at the last rate"
    if (bad := step.unusable(name, 2)) is not None:
        return [bad, failed("latest: updating result (-U seen)", 1, step.problem, step.hint, step="latest")]
    results = []
    expected = ref.latest(data)
    final = fold_by_key(step.table, ["currency"])
    found = [(k[0], v.get("orders"), v.get("total_krw")) for k, v in final.items()]
    diff = compare_rows([(c, n, t) for c, (n, t) in expected.items()], found, tolerance=TOLERANCE)
    if diff.ok:
        results.append(passed(name, 2, step="latest"))
    else:
        by_currency: dict[str, tuple[int, Decimal]] = {}
        for c, _, krw in ref.temporal(data).values():
            n, t = by_currency.get(c, (0, Decimal(0)))
            by_currency[c] = (n + 1, t + krw)
        hint = "JOIN rates_v r ON o.currency = r.currency (no FOR SYSTEM_TIME AS OF), GROUP BY currency."
        if compare_rows([(c, n, t) for c, (n, t) in by_currency.items()], found, tolerance=TOLERANCE).ok:
            hint = ("These are the temporal join's totals: latest.sql must join rates_v without FOR SYSTEM_TIME AS "
                    "OF, so every order ends at its currency's last rate.")
        results.append(failed(name, 2, f"expected per currency (currency, orders, total_krw): {_end(diff.describe())}"
                              + step.truncated_note(), hint, step="latest"))
    name = "latest: updating result (-U seen)"
    if "-U" in step.table.ops_seen():
        results.append(passed(name, 1, step="latest"))
    else:
        mode = "a batch table (no op column)" if not step.table.streaming else \
            f"ops {', '.join(sorted(step.table.ops_seen())) or 'none'}"
        results.append(failed(name, 1, f"expected -U rows (each rate change recomputes past orders); found {mode}.",
                              "Run latest.sql in streaming mode and join rates_v without FOR SYSTEM_TIME AS OF.",
                              step="latest"))
    return results


# ---- plans ------------------------------------------------------------------------------------------------------


def _scanned_tables(plan: Plan) -> set[str]:
    names = set()
    for node in plan.nodes_of_type("table-source-scan"):
        identifier = str(dig(node, "scanTableSource", "table", "identifier") or "")
        names.add(identifier.split(".")[-1].strip("`"))
    return names


def _join_kind(plan: Plan) -> str:
    if plan.nodes_of_type("interval-join"):
        return "an interval join"
    if plan.nodes_of_type("temporal-join"):
        return "a temporal join"
    if plan.nodes_of_type("stream-exec-join_"):
        return "a regular join"
    return "no join"


def _plan_check(ctx: GradingContext, which: str, points: float,
                judge: Callable[[Plan], tuple[str, str]]) -> CheckResult:
    file = PLAN_FILES[which]
    name = {"regular": "plans: regular join keeps leftState and rightState (TTL 0 ms)",
            "interval": "plans: interval join keeps no TTL state",
            "temporal": "plans: temporal join keeps no TTL state (its deduplicate does)"}[which]
    try:
        plan = load_plan(ctx.workspace / file)
    except PlanError as exc:
        return failed(name, points, str(exc), exc.hint or run_hint("joins", "plans"), step="plans")
    try:
        problem, hint = judge(plan)
    except PlanError as exc:  # a node edited by hand (e.g. a state list that is not one)
        return failed(name, points, f"{file}: {exc.message}", exc.hint or "", step="plans")
    if not problem:
        return passed(name, points, step="plans")
    return failed(name, points, f"{file}: {problem}", hint, step="plans")


def _judge_regular(plan: Plan) -> tuple[str, str]:
    joins = plan.nodes_of_type("stream-exec-join_")
    tables = _scanned_tables(plan)
    if not joins or tables != {"orders", "users"}:
        return ((f"expected a stream-exec-join node over orders and users; found {_join_kind(plan)} over "
                f"{', '.join(sorted(tables)) or 'no table'}."),
                ("The wrong query was compiled into regular-plan.json: compile INSERT INTO <blackhole sink> SELECT ... "
                "FROM orders o JOIN users u ON o.user_id = u.user_id (delete the old file first)."))
    entries = {e.name: e.ttl for e in state_entries(joins[0])}
    if entries.get("leftState") != "0 ms" or entries.get("rightState") != "0 ms":
        return ((f"expected state leftState and rightState with ttl 0 ms; found "
                f"{', '.join(f'{k}={v}' for k, v in entries.items()) or 'none'}."),
                "A state TTL was set (table.exec.state.ttl or a STATE_TTL hint); compile without it.")
    return "", ""


def _judge_interval(plan: Plan) -> tuple[str, str]:
    tables = _scanned_tables(plan)
    if not plan.nodes_of_type("interval-join") or tables != {"orders", "shipments"}:
        hint = ("The wrong query was compiled into interval-plan.json: compile the orders-shipments join with the "
                "BETWEEN time condition (delete the old file first).")
        if plan.nodes_of_type("stream-exec-join_"):
            hint = ("interval-plan.json holds a regular join: the compiled query has no time condition between "
                    "order_time and ship_time (or the regular query was compiled). Delete the file and compile the "
                    "interval join.")
        return ((f"expected an interval-join node over orders and shipments; found {_join_kind(plan)} over "
                f"{', '.join(sorted(tables)) or 'no table'}."), hint)
    stateful = [str(n.get("type")) for n in plan.stateful_nodes()]
    if stateful:
        return (f"expected no node with TTL state; found state on {', '.join(stateful)}.",
                "Compile only the interval join (no aggregation): its state is cleaned by the watermark.")
    return "", ""


def _judge_temporal(plan: Plan) -> tuple[str, str]:
    tables = _scanned_tables(plan)
    temporal = plan.nodes_of_type("temporal-join")
    if not temporal or tables != {"orders", "rates"}:
        hint = ("The wrong query was compiled into temporal-plan.json: compile orders JOIN rates_v FOR SYSTEM_TIME "
                "AS OF o.order_time (delete the old file first).")
        if plan.nodes_of_type("stream-exec-join_") and tables == {"orders", "rates"}:
            hint = ("temporal-plan.json holds a regular join: FOR SYSTEM_TIME AS OF o.order_time is missing from the "
                    "compiled query.")
        return ((f"expected a temporal-join node over orders and rates; found {_join_kind(plan)} over "
                f"{', '.join(sorted(tables)) or 'no table'}."), hint)
    if temporal[0].get("state"):
        return (("expected the temporal-join node without state; it has "
                f"{', '.join(e.name for e in state_entries(temporal[0]))}."), "Compile the event-time temporal join.")
    dedup = plan.nodes_of_type("deduplicate")
    if not dedup or not dedup[0].get("state"):
        return ("expected a deduplicate node with state (the rates_v view); found none.",
                "Join rates_v, the ROW_NUMBER() ... = 1 view over rates, not rates itself.")
    return "", ""


def _stale_plans_check(ctx: GradingContext) -> CheckResult:
    name = "plans: compiled from the current SQL and Flink version"
    want = ".".join(FLINK_VERSION.split(".")[:2])
    sources = [ctx.workspace / f for f in ("ddl.sql", "plans.sql") if (ctx.workspace / f).exists()]
    newest_source = max(sources, key=lambda p: p.stat().st_mtime, default=None)
    problems = []
    for file in PLAN_FILES.values():
        path = ctx.workspace / file
        try:
            version = load_plan(path).flink_version
        except PlanError as exc:
            problems.append(f"{file} does not exist" if "does not exist" in exc.message else f"{file} is not a plan")
            continue
        if version != want:
            problems.append(f"{file} has flinkVersion {clip(version) or 'none'}, not {want}")
        if newest_source is not None and path.stat().st_mtime < newest_source.stat().st_mtime:
            problems.append(f"{file} is older than {newest_source.name}")
    if not problems:
        return passed(name, 1, step="plans")
    hint = ("A stale plan file: COMPILE PLAN refuses to overwrite, so an old file stays. Delete the *-plan.json "
            "files and run plans.sql again.")
    try:
        plans_out = ctx.read("plans.out") or ""
    except FileReadError:
        plans_out = ""  # only a hint's wording depends on it
    if "Cannot overwrite the plan file" in plans_out:
        hint = "plans.out shows 'Cannot overwrite the plan file': " + hint
    if any("does not exist" in p for p in problems) and len(problems) == sum("does not exist" in p for p in problems):
        hint = run_hint("joins", "plans")
    return failed(name, 1, "expected each plan newer than ddl.sql/plans.sql and compiled by Flink "
                  f"{want}; found {'; '.join(problems)}.", hint, step="plans")


def _plan_checks(ctx: GradingContext) -> list[CheckResult]:
    return [
        _plan_check(ctx, "regular", 2, _judge_regular),
        _plan_check(ctx, "interval", 1, _judge_interval),
        _plan_check(ctx, "temporal", 1, _judge_temporal),
        _stale_plans_check(ctx),
    ]


# ---- report -------------------------------------------------------------------------------------------------------


def _intermediate_values(ctx: GradingContext) -> dict[str, list[float]]:
    """Values a learner gets by reading intermediate changelog rows instead of the final ones (for hints)."""
    values: dict[str, list[float]] = {"matched_orders": [], "usd_gap_krw": []}
    regular = read_step(ctx.workspace, "regular.out")
    if regular.ok and "orders" in regular.table.columns and regular.table.streaming:
        ordered = [as_int(r.get("orders")) or 0 for r in plus_rows(regular.table)]
        values["matched_orders"] += [sum(ordered), len(regular.table.rows), len(ordered)]
    latest, temporal = read_step(ctx.workspace, "latest.out"), read_step(ctx.workspace, "temporal.out")
    if latest.ok and temporal.ok and {"currency", "total_krw"} <= set(latest.table.columns) \
            and {"currency", "amount_krw"} <= set(temporal.table.columns):
        usd_temporal = sum((as_decimal(r.get("amount_krw")) or Decimal(0) for r in final_rows(temporal.table)
                            if r.get("currency") == "USD"), Decimal(0))
        usd_rows = [as_decimal(r.get("total_krw")) for r in plus_rows(latest.table) if r.get("currency") == "USD"]
        values["usd_gap_krw"] += [float(v - usd_temporal) for v in usd_rows[:-1] if v is not None]
        values["usd_gap_krw"].append(float(sum((v for v in usd_rows if v is not None), Decimal(0)) - usd_temporal))
    return values


def _report_checks(ctx: GradingContext, data: ref.JoinsData) -> list[CheckResult]:
    sources = {"matched_orders": "regular.out", "interval_rows": "interval.out", "unshipped_orders": "unshipped.out",
               "temporal_rows": "temporal.out", "orders_without_rate": "count.out and temporal.out",
               "usd_gap_krw": "latest.out and temporal.out"}
    intermediate: dict[str, list[float]] = {}

    def hint_for(field: str, got: Any, expected: Mapping[str, Any]) -> str:
        if not intermediate:  # parse the outputs only when a value is wrong
            intermediate.update(_intermediate_values(ctx))
        if any(numbers_close(v, got, TOLERANCE) for v in intermediate.get(field, [])):
            return (f"Computed from intermediate rows of {sources[field]} (all +I/-U/+U rows, or an early +U): "
                    "take only the last +I/+U per key.")
        return f"Copy it from {sources[field]}: in a changelog the last +I/+U per key is the final value."

    return report_field_checks(ctx, REPORT_FIELDS, ref.report(data), integer_fields=INTEGER_FIELDS, sources=sources,
                               hint_for=hint_for, tolerance=TOLERANCE, lab_name="joins",
                               fields_phrase="the six fields", read_verb="Copy")


# ---- entry point -----------------------------------------------------------------------------------------------


def checks(ctx: GradingContext) -> list[CheckResult]:
    """Every requirement of the joins lab, graded from the saved files against the CSVs."""
    data = ref.load(Path(ctx.data_dir))  # FlinklabError naming the file when the data cannot be read
    return [
        *_count_checks(ctx, data),
        *_regular_checks(ctx, data),
        *_interval_checks(ctx, data),
        *_unshipped_checks(ctx, data),
        *_temporal_checks(ctx, data),
        *_latest_checks(ctx, data),
        *_plan_checks(ctx),
        *_report_checks(ctx, data),
    ]
