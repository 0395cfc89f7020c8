"""The dedup lab's checks: each step's rows against the reference, with a hint naming the likely mistake, and the
report's fields."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from flinklab.grading.changelog import final_rows
from flinklab.grading.checks import CheckResult, failed, passed
from flinklab.grading.context import GradingContext
from flinklab.grading.outputs import StepChecks, read_step, run_hint
from flinklab.grading.report_checks import report_field_checks
from flinklab.grading.values import compare_rows
from flinklab_dedup import reference as ref
from flinklab_dedup.report import FIELD_SOURCES, REPORT_FIELDS

FIRST_COLUMNS = ("event_id", "user_id", "action", "ts")
LAST_COLUMNS = ("user_id", "action", "ts")


def _step(ctx: GradingContext, step: str, columns: Sequence[str]) -> StepChecks:
    out = read_step(ctx.workspace, f"{step}.out")
    hint = run_hint("dedup", step) if out.missing else "Fix the error the output shows, then run the step again."
    return StepChecks(out, step, columns, problem=f"expected {step}.out to hold a result; {out.error}."
                      if not out.ok else "", hint=hint if not out.ok else "")


def _rows_check(ctx: GradingContext, step: str, name: str, columns: Sequence[str], expected: list[tuple],
                mistakes: Sequence[tuple[list[tuple], str]], fallback: str) -> CheckResult:
    """`name` passes when the step's final rows are `expected`; else the hint of the first mistake whose rows
    they are, or `fallback`."""
    checks = _step(ctx, step, columns)
    unusable = checks.unusable(name, 3)
    if unusable is not None:
        return unusable
    found = final_rows(checks.table)
    diff = compare_rows(expected, found, columns=columns)
    if diff.ok:
        return passed(name, 3, step=step)
    hint = next((h for rows, h in mistakes if compare_rows(rows, found, columns=columns).ok), fallback)
    return failed(name, 3, f"expected {len(expected)} rows ({', '.join(columns)}): {diff.describe()}.", hint,
                  step=step)


def checks(ctx: GradingContext) -> list[CheckResult]:
    """Every check of the lab."""
    events = ref.load(ctx.data_dir)
    first = ref.first_deliveries(events)
    last = ref.latest_actions(events)
    results = [
        _rows_check(ctx, "first", "first: one row per event, its first delivery", FIRST_COLUMNS, first,
                    [(ref.keep(events, 0, latest=True), "ORDER BY ts DESC keeps each event's last delivery; "
                      "keep-first orders by ts ASC."),
                     (events, "Every delivery is still there: keep only rn = 1 in the outer query.")],
                    "Number each event's deliveries with ROW_NUMBER() OVER (PARTITION BY event_id ORDER BY ts "
                    "ASC) and keep rn = 1."),
        _rows_check(ctx, "last", "last: each user's latest action", LAST_COLUMNS, last,
                    [([(u, a, t) for _, u, a, t in ref.keep(events, 1, latest=False)],
                      "ORDER BY ts ASC keeps each user's first action; the latest needs ts DESC."),
                     ([(u, a, t) for _, u, a, t in ref.keep(events, 0, latest=True)],
                      "One row per event: partition by user_id to keep one row per user.")],
                    "ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts DESC), then keep rn = 1."),
    ]
    results += report_field_checks(
        ctx, REPORT_FIELDS, ref.report(events), integer_fields=REPORT_FIELDS, sources=FIELD_SOURCES,
        hint_for=lambda field, found, expected: f"Count the rows of {FIELD_SOURCES[field]}.",
        tolerance=Decimal(0), lab_name="dedup")
    return results
