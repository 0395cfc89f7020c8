"""Grade the windows lab: one check per requirement, each comparing the saved work with the plain-Python reference.

Checks read only the `.out` files, report.json and the CSV; they never ask the cluster. Final rows are compared as
sets (order ignored, numbers within a tolerance); window results must also be insert-only (`+I`), which is what
separates a window operator from a regular aggregation or Top-N that happens to end with the same rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from flinklab.grading.changelog import final_rows
from flinklab.grading.checks import CheckResult, failed, passed
from flinklab.grading.context import GradingContext
from flinklab.grading.outputs import (
    ErrorHints,
    StepChecks,
    error_line,
    format_number,
    hint_for_error,
    read_step,
    run_hint,
)
from flinklab.grading.report_checks import report_field_checks
from flinklab.grading.values import RowDiff, as_int, as_timestamp, compare_rows
from flinklab.labs.windows import reference as ref
from flinklab.labs.windows.fixtures import FILE
from flinklab.labs.windows.report import FIELD_SOURCES, REPORT_FIELDS

TOLERANCE = Decimal("0.01")
TEN_MIN = 10 * ref.MINUTE

COLUMNS: dict[str, tuple[str, ...]] = {
    "tumble": ("order_id", "shop", "amount", "order_time", "window_start", "window_end", "window_time"),
    "tumble_agg": ("window_start", "window_end", "shop", "orders", "revenue"),
    "hop": ("window_start", "window_end", "orders"),
    "cumulate": ("window_start", "window_end", "orders", "revenue"),
    "session": ("shop", "window_start", "window_end", "orders"),
    "top_shops": ("window_start", "window_end", "shop", "revenue", "rn"),
    "top_orders": ("window_start", "window_end", "order_id", "amount", "rn"),
}

STREAMING_HINT = "Window results are a streaming lesson: SET 'execution.runtime-mode' = 'streaming'; in the step file."
HOP_REVERSED_HINT = (
    "HOP arguments reversed: the order is HOP(TABLE orders, DESCRIPTOR(order_time), slide, size), so the 5-minute "
    "slide comes first and the 10-minute size second."
)
HOP_ARGS = "HOP takes (slide, size): INTERVAL '5' MINUTES, then INTERVAL '10' MINUTES."
CUMULATE_ARGS = "CUMULATE takes (step, size): INTERVAL '10' MINUTES, then INTERVAL '1' HOUR."
CUMULATE_REVERSED_HINT = (
    "CUMULATE arguments reversed: the order is CUMULATE(TABLE orders, DESCRIPTOR(order_time), step, size), so the "
    "10-minute step comes first and the 1-hour size second."
)
TIME_FLOOR_HINT = (
    "Updates mean a regular aggregation, e.g. GROUP BY on a time floor: aggregate over the window TVF instead "
    "(FROM TUMBLE/HOP/CUMULATE(TABLE orders, ...) GROUP BY window_start, window_end, ...), which emits each window "
    "once, when it closes."
)
SESSION_PARTITION_HINT = (
    "SESSION without PARTITION BY: sessions are then cut across all shops (and GROUP BY shop on top makes an "
    "updating aggregation). Write SESSION(TABLE orders PARTITION BY shop, DESCRIPTOR(order_time), "
    "INTERVAL '5' MINUTES)."
)
TOPN_PARTITION_HINT = (
    "Top-N partitioned by window_start only: the planner then builds a regular Top-N that updates its ranking "
    "(-U/+U). PARTITION BY window_start, window_end makes it a window Top-N that emits each window's answer once."
)


def _ts(ms: int) -> str:
    return ref.fmt_ms(ms)


def _minutes(ms: int) -> str:
    return f"{ms // ref.MINUTE} min" if ms % ref.MINUTE == 0 else f"{ms / ref.SECOND:g} s"


class _Output(StepChecks):
    """A step's output plus the failure every check of that step reports when the output is unusable."""

    def __init__(self, ctx: GradingContext, step: str, error_hint: Callable[[str], str] | None = None):
        out = read_step(ctx.workspace, f"{step}.out")
        problem = hint = ""
        if not out.ok:
            problem = f"expected the {step} result in {step}.out; {out.error}."
            if out.missing:
                hint = run_hint("windows", step)
            else:
                reason = "\n".join(out.errors)
                hint = (error_hint(reason) if error_hint else "") or _error_hint(step, reason)
        super().__init__(out, step, COLUMNS[step], problem, hint)

    def rows(self, columns: Sequence[str] | None = None) -> list[tuple]:
        return [tuple(r.get(c) for c in (columns or self.columns)) for r in final_rows(self.table)]

    def updates(self) -> list[str]:
        return sorted(op for op in self.table.ops_seen() if op != "+I")


#: What Flink's error reasons mean in this lab (grading.outputs.hint_for_error).
ERROR_HINTS: ErrorHints = (
    (("Unaligned windows like session are not supported in batch mode",),
     "SESSION windows work in streaming mode only: " + STREAMING_HINT),
    (("integral multiple of slide",), HOP_REVERSED_HINT),
    (("integral multiple of step",), CUMULATE_REVERSED_HINT),
    (("not found", "orders"),
     "The orders table is missing: run with `-i ddl.sql` (the runner does) and check ddl.sql."),
)


def _error_hint(step: str, reason: str) -> str:
    return hint_for_error(reason, ERROR_HINTS, f"Fix {step}.sql and run the step again.")


def _rows_check(out: _Output, name: str, points: float, expected: list[tuple],
                hint: Callable[[list[tuple], RowDiff], str], what: str) -> CheckResult:
    if (bad := out.unusable(name, points)) is not None:
        return bad
    found = out.rows()
    diff = compare_rows(expected, found, tolerance=TOLERANCE)
    if diff.ok:
        return passed(name, points, step=out.step)
    return failed(name, points, f"expected {len(expected)} rows ({what}), found {len(found)}: {diff.describe()}."
                  + out.truncated_note(), hint(found, diff), step=out.step)


def _insert_only_check(out: _Output, points: float, update_hint: str) -> CheckResult:
    name = f"{out.step}: insert-only (+I only)"
    if (bad := out.unusable(name, points)) is not None:
        return bad
    if not out.table.streaming:
        return failed(name, points, "expected a streaming changelog of +I rows; found a batch table (no op column).",
                      STREAMING_HINT, step=out.step)
    updates = out.updates()
    if not updates:
        return passed(name, points, step=out.step)
    counts = {op: out.table.ops.count(op) for op in updates} if out.table.ops else {}
    return failed(name, points, "expected +I rows only (a window emits its result once); found "
                  + ", ".join(f"{n} {op}" for op, n in counts.items()) + ".", update_hint, step=out.step)


def _window_lengths(found: list[tuple], start: int = 0, end: int = 1) -> set[int]:
    lengths = set()
    for row in found:
        a, b = as_timestamp(row[start]), as_timestamp(row[end])
        if a is not None and b is not None:
            lengths.add(int((b - a).total_seconds() * 1000))
    return lengths


# ---- tumble ---------------------------------------------------------------------------------------------------


def _tumble_checks(ctx: GradingContext, orders: list[ref.Order]) -> list[CheckResult]:
    out = _Output(ctx, "tumble")
    expected = [(o.order_id, o.shop, o.amount, _ts(o.ts), _ts(s), _ts(e), _ts(ref.window_time(e)))
                for o, (s, e) in ref.tumble_rows(orders)]

    def hint(found: list[tuple], diff: RowDiff) -> str:
        lengths = _window_lengths(found, 4, 5)
        if lengths and lengths != {TEN_MIN}:
            return (f"Windows of {', '.join(_minutes(n) for n in sorted(lengths))}: "
                    "TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES).")
        if any(r[6] is not None and r[6] == r[5] for r in found):
            return "window_time is window_end − 1 ms: select the TVF's own window_time column."
        if len(found) != len(expected):
            return "Every order appears exactly once: select every row of the TUMBLE TVF, with no WHERE."
        return "SELECT order_id, shop, amount, order_time, window_start, window_end, window_time FROM TUMBLE(...)."

    results = [_rows_check(out, "tumble: every order with its window", 2, expected, hint,
                           "order_id, shop, amount, order_time, window_start, window_end, window_time")]
    name = "tumble: an order exactly on a boundary opens the next window"
    on_boundary = [o for o in orders if o.ts % TEN_MIN == 0]
    if (bad := out.unusable(name, 1)) is not None:
        results.append(bad)
    else:
        starts = {str(r[0]): r[4] for r in out.rows()}
        wrong = [(o, starts.get(str(o.order_id))) for o in on_boundary
                 if as_timestamp(starts.get(str(o.order_id))) != as_timestamp(_ts(o.ts))]
        if not wrong:
            results.append(passed(name, 1, step="tumble",
                                  message=f"{len(on_boundary)} order(s) on a 10-minute boundary"))
        else:
            o, got = wrong[0]
            results.append(failed(
                name, 1, f"expected order {o.order_id} at {_ts(o.ts)} in the window starting {_ts(o.ts)}; found "
                f"{'no row' if got is None else 'window_start ' + str(got)}.",
                "Windows are half-open, [window_start, window_end): an order at exactly 09:10:00 belongs to "
                "[09:10, 09:20). Use the TVF's window columns rather than computing them.", step="tumble"))
    return results


def _tumble_agg_checks(ctx: GradingContext, orders: list[ref.Order]) -> list[CheckResult]:
    out = _Output(ctx, "tumble_agg")
    expected = [(_ts(s), _ts(e), shop, a.orders, a.revenue) for (s, e, shop), a in ref.tumble_agg(orders).items()]

    def hint(found: list[tuple], diff: RowDiff) -> str:
        lengths = _window_lengths(found)
        if lengths and lengths != {TEN_MIN}:
            return f"Windows of {', '.join(_minutes(n) for n in sorted(lengths))}: the TUMBLE size is 10 minutes."
        return ("COUNT(*) AS orders, SUM(amount) AS revenue FROM TUMBLE(TABLE orders, DESCRIPTOR(order_time), "
                "INTERVAL '10' MINUTES) GROUP BY window_start, window_end, shop.")

    return [
        _rows_check(out, "tumble_agg: orders and revenue per shop and 10-minute window", 2, expected, hint,
                    "window_start, window_end, shop, orders, revenue"),
        _insert_only_check(out, 1, TIME_FLOOR_HINT),
    ]


# ---- hop ------------------------------------------------------------------------------------------------------


def _hop_checks(ctx: GradingContext, orders: list[ref.Order]) -> list[CheckResult]:
    out = _Output(ctx, "hop")
    expected = [(_ts(s), _ts(e), a.orders) for (s, e), a in ref.hop_agg(orders).items()]

    def hint(found: list[tuple], diff: RowDiff) -> str:
        lengths = _window_lengths(found)
        if lengths and lengths != {TEN_MIN}:
            return (f"Wrong window sizes: windows of {', '.join(_minutes(n) for n in sorted(lengths))} instead of "
                    "10 min. " + HOP_ARGS)
        starts = {as_timestamp(r[0]) for r in found} - {None}
        if starts and any(s.minute % 5 or s.second for s in starts):  # type: ignore[union-attr]
            return "Windows must start every 5 minutes. " + HOP_ARGS
        return ("COUNT(*) AS orders FROM HOP(TABLE orders, DESCRIPTOR(order_time), INTERVAL '5' MINUTES, "
                "INTERVAL '10' MINUTES) GROUP BY window_start, window_end.")

    return [
        _rows_check(out, "hop: orders per 10-minute window, every 5 minutes", 2, expected, hint,
                    "window_start, window_end, orders"),
        _insert_only_check(out, 1, TIME_FLOOR_HINT),
    ]


def _hop_reversed_check(ctx: GradingContext) -> CheckResult:
    name = "hop_reversed: Flink rejects a size that is not a multiple of the slide"
    step = "hop_reversed"
    out = read_step(ctx.workspace, "hop_reversed.out")
    if out.missing:
        return failed(name, 1, "hop_reversed.out does not exist.", run_hint("windows", step), step=step)
    if out.parsed is None:  # the file is there but cannot be read as text
        return failed(name, 1, f"{out.error}.", "Run the step again so that it writes the file anew.", step=step)
    reasons = out.errors
    if any("integral multiple of slide" in r for r in reasons):
        return passed(name, 1, step=step)
    if reasons:
        return failed(name, 1, f"expected the [ERROR] '... size must be an integral multiple of slide ...'; found "
                      f"another error: {error_line(reasons[0], 300)}.",
                      "hop_reversed.sql is hop.sql's aggregation with the two intervals swapped: "
                      "HOP(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES, INTERVAL '5' MINUTES).",
                      step=step)
    table = out.parsed.table if out.parsed is not None else None
    found = f"{len(table.rows)} rows and no [ERROR]" if table is not None else "no [ERROR] and no result"
    mode = "" if table is None or table.streaming else " (a batch table: the check does not exist in batch mode)"
    return failed(name, 1, f"expected the [ERROR] '... size must be an integral multiple of slide ...'; found "
                  f"{found}{mode}.",
                  "Flink rejects swapped HOP arguments only for a window aggregation in streaming mode: keep GROUP BY "
                  "window_start, window_end and SET 'execution.runtime-mode' = 'streaming' (the raw TVF silently "
                  "drops rows instead).", step=step)


# ---- cumulate ----------------------------------------------------------------------------------------------------


def _cumulate_checks(ctx: GradingContext, orders: list[ref.Order]) -> list[CheckResult]:
    out = _Output(ctx, "cumulate")
    expected = [(_ts(s), _ts(e), a.orders, a.revenue) for (s, e), a in ref.cumulate_agg(orders).items()]

    def hint(found: list[tuple], diff: RowDiff) -> str:
        starts = {as_timestamp(r[0]) for r in found} - {None}
        lengths = _window_lengths(found)
        if any(s.minute or s.second for s in starts):  # type: ignore[union-attr]
            return "Wrong window sizes: every CUMULATE window starts on the hour. " + CUMULATE_ARGS
        if lengths and (max(lengths) > ref.HOUR or any(n % TEN_MIN for n in lengths)):
            return (f"Wrong window sizes: windows of {', '.join(_minutes(n) for n in sorted(lengths))}; they grow by "
                    "10 minutes up to 1 hour. " + CUMULATE_ARGS)
        return ("COUNT(*) AS orders, SUM(amount) AS revenue FROM CUMULATE(TABLE orders, DESCRIPTOR(order_time), "
                "INTERVAL '10' MINUTES, INTERVAL '1' HOUR) GROUP BY window_start, window_end.")

    return [
        _rows_check(out, "cumulate: orders and revenue since the hour, every 10 minutes", 2, expected, hint,
                    "window_start, window_end, orders, revenue"),
        _insert_only_check(out, 1, TIME_FLOOR_HINT),
    ]


# ---- session -----------------------------------------------------------------------------------------------------


def _session_checks(ctx: GradingContext, orders: list[ref.Order]) -> list[CheckResult]:
    out = _Output(ctx, "session")
    expected = [(s.key, _ts(s.start), _ts(s.end), s.orders) for s in ref.sessions(orders)]
    global_bounds = {(_ts(s.start), _ts(s.end)) for s in ref.sessions(orders, by_shop=False)}

    def hint(found: list[tuple], diff: RowDiff) -> str:
        bounds = {(str(r[1]), str(r[2])) for r in found}
        canonical_global = {(as_timestamp(a), as_timestamp(b)) for a, b in global_bounds}
        if bounds and {(as_timestamp(a), as_timestamp(b)) for a, b in bounds} <= canonical_global:
            return SESSION_PARTITION_HINT
        if out.updates():
            return SESSION_PARTITION_HINT
        return ("COUNT(*) AS orders FROM SESSION(TABLE orders PARTITION BY shop, DESCRIPTOR(order_time), "
                "INTERVAL '5' MINUTES) GROUP BY shop, window_start, window_end; a gap of exactly 5 minutes stays in "
                "one session.")

    return [
        _rows_check(out, "session: sessions per shop (5-minute gap)", 2, expected, hint,
                    "shop, window_start, window_end, orders"),
        _insert_only_check(out, 1, SESSION_PARTITION_HINT),
    ]


# ---- window Top-N ------------------------------------------------------------------------------------------------


def _ties_problem(ties: list[ref.Tie], what: str, csv_path: Path) -> str:
    shown = "; ".join(
        f"{', '.join(t.keys)} at {format_number(t.value, keep_zeros=True)} in [{_ts(t.window[0])}, {_ts(t.window[1])})"
        for t in ties[:3]
    )
    return (f"the data has {len(ties)} tie(s) in {what} that decide the Top-N answer ({shown}"
            f"{'; ...' if len(ties) > 3 else ''}): {csv_path.name} is not the lab's data")


def _ties_hint(order_by: str, tiebreak: str) -> str:
    return (f"Revenue ties broken by chance: ROW_NUMBER picks one of the tied rows, and which one may change from "
            f"run to run. The lab's generated data has no ties: restore it (`flinklab fixtures generate`, then "
            f"`flink-up` provisions it), or break ties explicitly (ORDER BY {order_by} DESC, {tiebreak}).")


def _topn_checks(ctx: GradingContext, step: str, name: str, expected: list[tuple], ties: list[ref.Tie],
                 order_by: str, tiebreak: str, n: int, base_hint: str) -> list[CheckResult]:
    out = _Output(ctx, step)
    csv_path = Path(ctx.data_dir) / FILE

    def hint(found: list[tuple], diff: RowDiff) -> str:
        if out.updates():
            return TOPN_PARTITION_HINT
        ranks = [as_int(r[4]) for r in found]
        if any(rank is None or rank > n for rank in ranks):
            return f"Keep the top {n} per window: WHERE rn <= {n}."
        return base_hint

    if ties and not out.problem:
        results = [failed(name, 2, f"expected one unique answer per window; {_ties_problem(ties, order_by, csv_path)}.",
                          _ties_hint(order_by, tiebreak), step=step)]
    else:
        results = [_rows_check(out, name, 2, expected, hint, ", ".join(COLUMNS[step]))]
    results.append(_insert_only_check(out, 1, TOPN_PARTITION_HINT))
    return results


def _top_shops_checks(ctx: GradingContext, orders: list[ref.Order]) -> list[CheckResult]:
    expected = [(_ts(r.window[0]), _ts(r.window[1]), r.key, r.value, r.rn) for r in ref.top_shops(orders)]
    return _topn_checks(
        ctx, "top_shops", "top_shops: the 2 shops with the most revenue per 10-minute window", expected,
        ref.revenue_ties(orders), "revenue", "shop", 2,
        "ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY revenue DESC) AS rn over the 10-minute "
        "TUMBLE aggregation, then WHERE rn <= 2.")


def _top_orders_checks(ctx: GradingContext, orders: list[ref.Order]) -> list[CheckResult]:
    expected = [(_ts(r.window[0]), _ts(r.window[1]), r.key, r.value, r.rn) for r in ref.top_orders(orders)]
    return _topn_checks(
        ctx, "top_orders", "top_orders: the 3 largest orders per 30-minute window", expected,
        ref.amount_ties(orders), "amount", "order_id", 3,
        "ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY amount DESC) AS rn directly on "
        "TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '30' MINUTES), then WHERE rn <= 3.")


# ---- report -------------------------------------------------------------------------------------------------------


def _report_hint(field: str, got: Any, want: Mapping[str, Any]) -> str:
    source = f"{FIELD_SOURCES[field]}.out"
    if field == "orders" and got == 2 * want["orders"]:
        return ("HOP counts summed as if they were orders: every order sits in two HOP windows (size / slide = 2). "
                "Count the orders in tumble.out, where each appears once.")
    if field == "hop_orders_total" and got == want["orders"]:
        return ("hop_orders_total is the sum of hop.out's orders column: each order is counted in two windows, so "
                "it is twice the number of orders.")
    if field == "cumulate_windows_per_start":
        return "Count the cumulate.out rows sharing one window_start: 1 hour / 10 minutes = 6."
    if field == "longest_session_s":
        return "The longest window_end − window_start in session.out, in seconds (the end includes the 5-minute gap)."
    return f"Read it from {source} (rows are final: window results are insert-only)."


def _report_checks(ctx: GradingContext, orders: list[ref.Order]) -> list[CheckResult]:
    sources = {field: f"{step}.out" for field, step in FIELD_SOURCES.items()}
    return report_field_checks(ctx, REPORT_FIELDS, ref.expected_report(orders), integer_fields=REPORT_FIELDS,
                               sources=sources, hint_for=_report_hint, tolerance=TOLERANCE, lab_name="windows")


# ---- entry point -----------------------------------------------------------------------------------------------


def checks(ctx: GradingContext) -> list[CheckResult]:
    """Every requirement of the windows lab, graded from the saved files against the CSV."""
    orders = ref.load_orders(Path(ctx.data_dir) / FILE)  # FlinklabError naming the file when it cannot be read
    return [
        *_tumble_checks(ctx, orders),
        *_tumble_agg_checks(ctx, orders),
        *_hop_checks(ctx, orders),
        _hop_reversed_check(ctx),
        *_cumulate_checks(ctx, orders),
        *_session_checks(ctx, orders),
        *_top_shops_checks(ctx, orders),
        *_top_orders_checks(ctx, orders),
        *_report_checks(ctx, orders),
    ]
