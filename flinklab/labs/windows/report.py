"""report.json of the windows lab, built from the saved outputs the way the guide tells a learner to: window
results are insert-only, so every `+I` row is a final row; count them, and read the numbers off them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

from flinklab.grading.changelog import final_rows
from flinklab.grading.outputs import read_step
from flinklab.grading.values import as_int, as_timestamp

#: Which saved output each report field is read from (for messages and for the report's own gaps).
FIELD_SOURCES = {
    "orders": "tumble",
    "tumble_windows": "tumble",
    "hop_windows": "hop",
    "hop_orders_total": "hop",
    "cumulate_windows": "cumulate",
    "cumulate_windows_per_start": "cumulate",
    "sessions": "session",
    "longest_session_s": "session",
    "top_shops_rows": "top_shops",
    "top_orders_rows": "top_orders",
}

#: The report's fields, in the order the report lists them.
REPORT_FIELDS = tuple(FIELD_SOURCES)


def _seconds_between(start: str | None, end: str | None) -> int | None:
    a, b = as_timestamp(start), as_timestamp(end)
    return None if a is None or b is None else int((b - a).total_seconds())


def build_report(workspace: Path) -> dict:
    """report.json from the saved outputs. A field whose output is missing or unusable is left out (the checks
    then say which step to run)."""
    workspace = Path(workspace)
    out = {step: read_step(workspace, f"{step}.out") for step in set(FIELD_SOURCES.values())}

    def rows(step: str) -> list[dict[str, str | None]]:
        table = out[step].table
        assert table is not None
        return final_rows(table)

    def per_start_max() -> int:
        return max(Counter(r["window_start"] for r in rows("cumulate")).values(), default=0)

    def longest() -> int | None:
        lengths = [_seconds_between(r["window_start"], r["window_end"]) for r in rows("session")]
        known = [n for n in lengths if n is not None]
        return max(known) if known else None

    fields: dict[str, Callable[[], int | None]] = {
        "orders": lambda: len(rows("tumble")),
        "tumble_windows": lambda: len({r["window_start"] for r in rows("tumble")}),
        "hop_windows": lambda: len(rows("hop")),
        "hop_orders_total": lambda: sum(as_int(r["orders"]) or 0 for r in rows("hop")),
        "cumulate_windows": lambda: len(rows("cumulate")),
        "cumulate_windows_per_start": per_start_max,
        "sessions": lambda: len(rows("session")),
        "longest_session_s": longest,
        "top_shops_rows": lambda: len(rows("top_shops")),
        "top_orders_rows": lambda: len(rows("top_orders")),
    }
    report: dict[str, int] = {}
    for name in REPORT_FIELDS:
        if not out[FIELD_SOURCES[name]].ok:
            continue
        try:
            value = fields[name]()
        except KeyError:  # a column the lab names is missing from the output
            continue
        if value is not None:
            report[name] = value
    return report
