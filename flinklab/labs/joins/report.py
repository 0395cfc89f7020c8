"""report.json of the joins lab, built from the saved outputs the way the lab tells a learner to: in a
changelog the last +I/+U per key is the final value; append-only results are counted by their `+I` rows.

Also `plus_rows`, which the checks use to recognise a report computed from intermediate rows.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from flinklab.grading.changelog import final_rows, fold_by_key
from flinklab.grading.outputs import StepOutput, read_step
from flinklab.grading.parse import ResultTable
from flinklab.grading.values import as_decimal, as_int

REPORT_FIELDS = (
    "matched_orders",
    "interval_rows",
    "unshipped_orders",
    "temporal_rows",
    "orders_without_rate",
    "usd_gap_krw",
)
INTEGER_FIELDS = REPORT_FIELDS[:-1]


def plus_rows(table: ResultTable) -> list[dict[str, str | None]]:
    """The `| +I |` (and `+U`) rows: what `grep` counts for an append-only result (batch: every row)."""
    if table.ops is None:
        return table.records()
    return [dict(zip(table.columns, row)) for op, row in zip(table.ops, table.rows) if op in ("+I", "+U")]


def _sum(values) -> Decimal:
    total = Decimal(0)
    for value in values:
        number = as_decimal(value)
        if number is not None:
            total += number
    return total


def _usd_latest(out: dict[str, StepOutput]) -> Decimal | None:
    latest = fold_by_key(out["latest"].table, ["currency"])
    return as_decimal((latest.get(("USD",)) or {}).get("total_krw"))


def build_report(workspace: Path) -> dict:
    """report.json from the saved outputs. A field whose output is missing or unusable is left out (the checks
    then say which step to run)."""
    workspace = Path(workspace)
    out = {name: read_step(workspace, f"{name}.out")
           for name in ("count", "regular", "interval", "unshipped", "temporal", "latest")}

    def temporal() -> list[dict[str, str | None]]:
        return final_rows(out["temporal"].table)

    def matched_orders() -> int:
        tiers = fold_by_key(out["regular"].table, ["tier"])
        return sum(as_int(r.get("orders")) or 0 for r in tiers.values())

    def orders_without_rate() -> int | None:
        orders = as_int((fold_by_key(out["count"].table, ["tbl"]).get(("orders",)) or {}).get("n"))
        return None if orders is None else orders - len(temporal())

    def usd_gap_krw() -> float | None:
        usd_latest = _usd_latest(out)
        if usd_latest is None:
            return None
        usd_temporal = _sum(r.get("amount_krw") for r in temporal() if r.get("currency") == "USD")
        return float(usd_latest - usd_temporal)

    fields = {
        "matched_orders": (("regular",), matched_orders),
        "interval_rows": (("interval",), lambda: len(plus_rows(out["interval"].table))),
        "unshipped_orders": (("unshipped",), lambda: len(plus_rows(out["unshipped"].table))),
        "temporal_rows": (("temporal",), lambda: len(temporal())),
        "orders_without_rate": (("count", "temporal"), orders_without_rate),
        "usd_gap_krw": (("latest", "temporal"), usd_gap_krw),
    }
    report: dict[str, int | float] = {}
    for name, (needs, compute) in fields.items():
        if not all(out[step].ok for step in needs):
            continue
        try:
            value = compute()
        except KeyError:  # a column the lab names is missing (MissingColumnError is a KeyError)
            continue
        if value is not None:
            report[name] = value
    return report
