"""report.json of the windows lab, built from the saved outputs the way the guide tells a learner to: window
results are insert-only, so every `+I` row is a final row; count them, and read the numbers off them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from flinklab.lab_api import (
    ReportField,
    StepOutput,
    as_timestamp,
    final_rows,
    report_field_names,
    report_field_sources,
    report_from_fields,
)


def _rows(outputs: Mapping[str, StepOutput], step: str) -> list[dict[str, str | None]]:
    table = outputs[step].table
    assert table is not None
    return final_rows(table)


def _per_start_max(outputs: Mapping[str, StepOutput]) -> int:
    return max(Counter(r["window_start"] for r in _rows(outputs, "cumulate")).values(), default=0)


def _seconds_between(start: str | None, end: str | None) -> int | None:
    a, b = as_timestamp(start), as_timestamp(end)
    return None if a is None or b is None else int((b - a).total_seconds())


def _longest(outputs: Mapping[str, StepOutput]) -> int | None:
    lengths = [_seconds_between(r["window_start"], r["window_end"]) for r in _rows(outputs, "session")]
    known = [n for n in lengths if n is not None]
    return max(known) if known else None


#: The report's fields, in the order the report lists them, each read from one step's output.
FIELDS = (
    ReportField("orders", ("tumble",)),
    ReportField("tumble_windows", ("tumble",), "distinct", "window_start"),
    ReportField("hop_windows", ("hop",)),
    ReportField("hop_orders_total", ("hop",), "sum", "orders"),
    ReportField("cumulate_windows", ("cumulate",)),
    ReportField("cumulate_windows_per_start", ("cumulate",), _per_start_max),
    ReportField("sessions", ("session",)),
    ReportField("longest_session_s", ("session",), _longest),
    ReportField("top_shops_rows", ("top_shops",)),
    ReportField("top_orders_rows", ("top_orders",)),
)
REPORT_FIELDS = report_field_names(FIELDS)
#: Which saved output each report field is read from (for messages).
SOURCES = report_field_sources(FIELDS)


def build_report(workspace: Path) -> dict:
    """report.json from the saved outputs. A field whose output is missing or unusable is left out (the checks
    then say which step to run)."""
    return report_from_fields(workspace, FIELDS)
