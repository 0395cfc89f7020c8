"""report.json as a table: each field is a count or a sum over one step's output (or, where it needs code, a
function of the outputs), built from the saved outputs the way a lab's guide tells a learner to read them.

`build_report(workspace, fields)` reads each output once; a field whose output is missing or unusable, or lacks
a column the field names, is left out (the report checks then say which step to run). `sources(fields)` says
where each field is read from, for the checks' messages.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from flinklab.grading.changelog import final_rows, fold_by_key
from flinklab.grading.outputs import StepOutput, read_step
from flinklab.grading.parse import ResultTable
from flinklab.grading.values import as_int

Rows = list[dict[str, str | None]]
#: How a field is computed from its step's rows: how many rows, how many distinct values of `column`, the sum
#: of `column` (whole numbers; a cell that is none counts 0), or a function of the outputs by step id.
How = Literal["rows", "distinct", "sum"] | Callable[[Mapping[str, StepOutput]], int | float | None]


def added_rows(table: ResultTable) -> Rows:
    """The `| +I |` (and `+U`) rows: what `grep` counts for an append-only result (batch: every row)."""
    if table.ops is None:
        return table.records()
    return [dict(zip(table.columns, row, strict=False))
            for op, row in zip(table.ops, table.rows, strict=False) if op in ("+I", "+U")]


@dataclass(frozen=True)
class ReportField:
    """One report field: `how` over the rows of `steps[0]`'s output (its final rows, with `key` the last +I/+U
    per key, with `added` every +I/+U row); a callable `how` reads all of `steps`. `source` names where a learner
    reads it ("" = the steps' `.out` files joined by "and")."""

    name: str
    steps: tuple[str, ...]
    how: How = "rows"
    column: str = ""
    key: tuple[str, ...] = ()
    added: bool = False
    source: str = ""

    @property
    def where(self) -> str:
        return self.source or " and ".join(f"{step}.out" for step in self.steps)


def _rows(field: ReportField, table: ResultTable) -> Rows:
    if field.key:
        return list(fold_by_key(table, field.key).values())
    return added_rows(table) if field.added else final_rows(table)


def _value(field: ReportField, outputs: Mapping[str, StepOutput]) -> int | float | None:
    if callable(field.how):
        return field.how(outputs)
    table = outputs[field.steps[0]].table
    assert table is not None
    rows = _rows(field, table)
    if field.how == "rows":
        return len(rows)
    if field.how == "distinct":
        return len({r[field.column] for r in rows})  # KeyError: the column is missing
    return sum(as_int(r[field.column]) or 0 for r in rows)


def build_report(workspace: Path, fields: Sequence[ReportField]) -> dict[str, int | float]:
    """report.json from the saved outputs in `workspace`; fields that cannot be computed are left out."""
    needed = dict.fromkeys(step for f in fields for step in f.steps)
    outputs = {step: read_step(Path(workspace), f"{step}.out") for step in needed}
    report: dict[str, int | float] = {}
    for field in fields:
        if not all(outputs[step].ok for step in field.steps):
            continue
        try:
            value = _value(field, outputs)
        except KeyError:  # a column the lab names is missing (MissingColumnError is a KeyError)
            continue
        if value is not None:
            report[field.name] = value
    return report


def names(fields: Sequence[ReportField]) -> tuple[str, ...]:
    """The fields' names, in order (Lab.report_fields)."""
    return tuple(f.name for f in fields)


def sources(fields: Sequence[ReportField]) -> dict[str, str]:
    """Where each field is read from, for messages (ReportSpec.sources)."""
    return {f.name: f.where for f in fields}
