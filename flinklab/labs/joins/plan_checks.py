"""The joins lab's checks over the compiled plans (regular-plan.json, interval-plan.json, temporal-plan.json):
the join node each must hold, the state it keeps, and that the files are not stale. Code, not a table: they read
JSON plans, not result tables.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from flinklab.lab_api import (
    FLINK_VERSION,
    CheckResult,
    DdlFiles,
    FileReadError,
    GradingContext,
    Plan,
    PlanError,
    clip,
    ddl_hint,
    dig,
    failed,
    load_plan,
    passed,
    read_step,
    run_hint,
    saved_sql,
    scan_differences,
    state_entries,
    tables_of,
)

PLAN_FILES = {"regular": "regular-plan.json", "interval": "interval-plan.json", "temporal": "temporal-plan.json"}


def reference_ddl() -> str:
    """The lab's own ddl.sql (what a learner's is diagnosed against when a step fails because of it)."""
    return (Path(__file__).resolve().parent / "sql" / "ddl.sql").read_text(encoding="utf-8")


def _ddl_hint(ctx: GradingContext) -> str | None:
    """The hint naming what ddl.sql lacks when plans.out shows an error that comes from it (a plan not compiled)."""
    errors = read_step(ctx.workspace, "plans.out").errors
    return ddl_hint(errors, DdlFiles(saved_sql(ctx, "ddl.sql"), reference_ddl(), saved_sql(ctx, "plans.sql"),
                                     data_dir=Path(ctx.data_dir))) if errors else None


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
        missing = not (ctx.workspace / file).exists()
        hint = (_ddl_hint(ctx) if missing else None) or exc.hint or run_hint("joins", "plans")
        return failed(name, points, str(exc), hint, step="plans")
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
    # fresh is by content, not file time: each scanned table must be the one ddl.sql defines now (its columns and
    # options), so a byte-identical ddl.sql copied back keeps its plans and an edited table makes them stale
    try:
        ddl = ctx.read("ddl.sql")
    except FileReadError:
        ddl = None
    tables = tables_of(ddl) if ddl is not None else None
    problems = []
    for file in PLAN_FILES.values():
        path = ctx.workspace / file
        try:
            plan = load_plan(path)
        except PlanError as exc:
            problems.append(f"{file} does not exist" if "does not exist" in exc.message else f"{file} is not a plan")
            continue
        if plan.flink_version != want:
            problems.append(f"{file} has flinkVersion {clip(plan.flink_version) or 'none'}, not {want}")
        if tables is not None:
            differences = [d for scan in plan.nodes_of_type("table-source-scan")
                           for d in scan_differences(scan, tables, "ddl.sql")]
            if differences:
                problems.append(f"{file} was compiled from other tables than ddl.sql defines now: "
                                f"{clip('; '.join(differences), 300)}")
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
        hint = _ddl_hint(ctx) or run_hint("joins", "plans")
    return failed(name, 1, "expected each plan compiled from the tables ddl.sql defines now, by Flink "
                  f"{want}; found {'; '.join(problems)}.", hint, step="plans")


def plan_checks(ctx: GradingContext) -> list[CheckResult]:
    """The plan checks, in the order the lab lists them."""
    return [
        _plan_check(ctx, "regular", 2, _judge_regular),
        _plan_check(ctx, "interval", 1, _judge_interval),
        _plan_check(ctx, "temporal", 1, _judge_temporal),
        _stale_plans_check(ctx),
    ]
