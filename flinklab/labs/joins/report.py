"""report.json of the joins lab, built from the saved outputs the way the lab tells a learner to: in a
changelog the last +I/+U per key is the final value; append-only results are counted by their `+I` rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path

from flinklab.lab_api import (
    ReportField,
    ResultTable,
    StepOutput,
    as_decimal,
    as_int,
    final_rows,
    fold_by_key,
    report_field_names,
    report_field_sources,
    report_from_fields,
)


def _table(outputs: Mapping[str, StepOutput], step: str) -> ResultTable:
    table = outputs[step].table
    assert table is not None
    return table


def _matched_orders(outputs: Mapping[str, StepOutput]) -> int:
    # r.get: a missing `orders` column counts 0 (the tier key must be there)
    tiers = fold_by_key(_table(outputs, "regular"), ["tier"])
    return sum(as_int(r.get("orders")) or 0 for r in tiers.values())


def _orders_without_rate(outputs: Mapping[str, StepOutput]) -> int | None:
    orders = as_int((fold_by_key(_table(outputs, "count"), ["tbl"]).get(("orders",)) or {}).get("n"))
    return None if orders is None else orders - len(final_rows(_table(outputs, "temporal")))


def _usd_gap_krw(outputs: Mapping[str, StepOutput]) -> float | None:
    latest = fold_by_key(_table(outputs, "latest"), ["currency"])
    usd_latest = as_decimal((latest.get(("USD",)) or {}).get("total_krw"))
    if usd_latest is None:
        return None
    usd_temporal = Decimal(0)
    for r in final_rows(_table(outputs, "temporal")):
        number = as_decimal(r.get("amount_krw")) if r.get("currency") == "USD" else None
        if number is not None:
            usd_temporal += number
    return float(usd_latest - usd_temporal)


FIELDS = (
    ReportField("matched_orders", ("regular",), _matched_orders),
    ReportField("interval_rows", ("interval",), added=True),
    ReportField("unshipped_orders", ("unshipped",), added=True),
    ReportField("temporal_rows", ("temporal",)),
    ReportField("orders_without_rate", ("count", "temporal"), _orders_without_rate),
    ReportField("usd_gap_krw", ("latest", "temporal"), _usd_gap_krw),
)
REPORT_FIELDS = report_field_names(FIELDS)
INTEGER_FIELDS = REPORT_FIELDS[:-1]
#: Where each field is read from (for messages).
SOURCES = report_field_sources(FIELDS)


def build_report(workspace: Path) -> dict:
    """report.json from the saved outputs. A field whose output is missing or unusable is left out (the checks
    then say which step to run)."""
    return report_from_fields(workspace, FIELDS)
