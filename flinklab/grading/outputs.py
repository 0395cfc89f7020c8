"""A lab step's saved `.out` file read for grading: its last result table, or one line saying why there is none
(`read_step`); the same output as a step's checks see it (`StepChecks`); numbers as messages print them.

Labs build report.json and their checks from these; nothing here knows a lab.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flinklab.grading.files import MAX_OUTPUT_BYTES, FileReadError, MissingFileError, read_text
from flinklab.grading.parse import ParsedOutput, ResultTable, parse_output
from flinklab.grading.results import CheckResult, failed
from flinklab.grading.values import as_decimal, clip

#: How much of an error's reason a message quotes.
REASON_LIMIT = 400


@dataclass
class StepOutput:
    """One step's saved output: its last result table, or why there is none (`error`)."""

    file: str
    table: ResultTable | None = None  # None whenever `error` is set
    parsed: ParsedOutput | None = None  # None when the file does not exist
    error: str = ""  # "" when the table is there
    missing: bool = False

    @property
    def ok(self) -> bool:
        return self.table is not None

    @property
    def errors(self) -> list[str]:
        """Every error reason the output printed (whole, all lines)."""
        return self.parsed.errors if self.parsed is not None else []


def error_line(reason: str, limit: int = REASON_LIMIT) -> str:
    """The line of an error reason a message quotes: the first, `<class>: <message>` of the root cause the client
    prints (later lines continue that message, e.g. a parser's "Was expecting one of: ...")."""
    text = reason.strip()
    return text.splitlines()[0][:limit] if text else "an error"


def read_step(workspace: Path, out_file: str) -> StepOutput:
    """Parse `workspace/out_file` (read by the one reader: bounded, UTF-8, CRLF normalised); say what is wrong
    when it cannot be read or holds no (well-formed) result table."""
    try:
        text = read_text(Path(workspace) / out_file, limit=MAX_OUTPUT_BYTES, label=out_file)
    except MissingFileError:
        return StepOutput(out_file, error=f"{out_file} does not exist", missing=True)
    except FileReadError as exc:
        return StepOutput(out_file, error=str(exc).rstrip("."))
    parsed = parse_output(text)
    if parsed.errors:
        return StepOutput(out_file, parsed=parsed, error=f"{out_file} shows an error: {error_line(parsed.errors[0])}")
    if parsed.table is None:
        return StepOutput(out_file, parsed=parsed, error=f"{out_file} holds no result table")
    if parsed.table.problem:
        return StepOutput(out_file, parsed=parsed,
                          error=f"{out_file} holds a malformed result table ({parsed.table.problem})")
    return StepOutput(out_file, table=parsed.table, parsed=parsed)


def format_number(value: Any, *, keep_zeros: bool = False) -> str:
    """A number for a message: a Decimal without exponent, whole numbers without trailing zeros (`120.00` ->
    `120`, `0.50` stays; with `keep_zeros` `120.00` stays too, as the table printed it); None as NULL, anything
    else as its str."""
    number = as_decimal(value)
    if number is None:
        return "NULL" if value is None else clip(str(value))
    if keep_zeros or number != number.to_integral_value():
        return format(number, "f")
    return format(number.normalize(), "f")


#: An error-to-hint map: (phrases an error reason must all contain, the hint it gets), first match wins.
ErrorHints = Sequence[tuple[tuple[str, ...], str]]


def hint_for_error(reason: str, hints: ErrorHints, default: str) -> str:
    """The hint of the first entry of `hints` whose phrases all appear in `reason`; else `default`."""
    return next((hint for phrases, hint in hints if all(p in reason for p in phrases)), default)


def run_hint(lab: str, step: str) -> str:
    """The hint for a step whose output is missing: how to run it by hand, or with flinklab."""
    return (f"Run the {step} step: `sql-client.sh -i ddl.sql -f {step}.sql > {step}.out 2>&1` in the workspace "
            f"(or `flinklab run {lab} --only {step}`).")


class StepChecks:
    """A step's output as its checks see it: the table, or the failure every check of the step reports instead.

    The lab decides `problem` and `hint` for an output without a table (its wording, its error hints). A table
    that lacks one of `columns` is a problem only for the checks that read those columns (`unusable(...,
    needs_columns=True)`): a changelog's kind, say, is graded all the same. `column_hints` maps a column to the
    hint for an output without it (the lab's knowledge of why it would be missing), else the generic one. Subclass
    it for a lab's own helpers.
    """

    def __init__(self, out: StepOutput, step: str, columns: Sequence[str], problem: str = "", hint: str = "",
                 column_hints: Mapping[str, str] | None = None):
        self.out = out
        self.step = step
        self.columns = tuple(columns)
        self.problem = problem
        self.hint = hint
        self.columns_problem = ""
        self.columns_hint = ""
        if out.ok and not problem:
            absent = [c for c in self.columns if c not in self.table.columns]
            if absent:
                has = ", ".join(self.table.columns) or "none"
                self.columns_problem = (f"expected the columns {', '.join(self.columns)}; {step}.out has no "
                                        f"{', '.join(absent)} (its columns: {has}).")
                hints = column_hints or {}
                self.columns_hint = next((hints[c] for c in absent if c in hints),
                                         f"Name the result columns as the lab asks: {', '.join(self.columns)}.")

    @property
    def table(self) -> ResultTable:
        assert self.out.table is not None
        return self.out.table

    def unusable(self, name: str, points: float, needs_columns: bool = True) -> CheckResult | None:
        """The failed check `name` when the output cannot be graded (for a check that reads the step's columns,
        also when one is missing); None when it can."""
        if self.problem:
            return failed(name, points, self.problem, self.hint, step=self.step)
        if needs_columns and self.columns_problem:
            return failed(name, points, self.columns_problem, self.columns_hint, step=self.step)
        return None

    def truncated_note(self) -> str:
        """A note for a failure message when the table has no footer (the run may have been cut short)."""
        return "" if self.table.complete else f" ({self.step}.out ends without a footer: was the run cut short?)"
