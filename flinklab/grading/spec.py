"""A lab's checks as a table: per step its columns and checks (rows against the reference, changelog kind, whole
numbers per key, an expected error, or a judge written in code), the lab's wording of an unusable output, and the
report's fields. `flinklab.grading.engine` turns such a table and the lab's reference data into CheckResults.

What is data stays data (names, points, columns, hints, message templates, error-to-hint maps); a callable is
left only where a check needs a diagnosis (which mistake explains a wrong row set) or a reference computation.
Every callable gets the lab's reference data (what its `load` returned) through the view it is handed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from flinklab.grading.outputs import ErrorHints

if TYPE_CHECKING:  # the views are the engine's; the table only names them in its callables' types
    from flinklab.grading.context import GradingContext
    from flinklab.grading.engine import Compared, StepView
    from flinklab.grading.results import CheckResult

#: The reference data of a lab: whatever its `load(data_dir)` returns.
Data = Any
RowsOf = Callable[[Data], Iterable[Sequence[Any]]]


@dataclass(frozen=True)
class Verdict:
    """What a judge written in code decides: passed (with an optional note) or failed with a message and hint."""

    passed: bool
    message: str = ""
    hint: str = ""


def ok(message: str = "") -> Verdict:
    """A passing verdict (`message` is shown beside the pass, e.g. how many cases were checked)."""
    return Verdict(True, message)


def wrong(message: str, hint: str) -> Verdict:
    """A failing verdict: what was expected and found, and the likely mistake."""
    return Verdict(False, message, hint)


@dataclass(frozen=True)
class Rows:
    """The step's final rows (the spec's `columns`) equal the reference's rows, as a multiset.

    Final rows are the changelog folded as a multiset, or with `key` the last +I/+U per key. On a difference the
    hint is the first of `mistakes` whose rows the output equals, else what `diagnose` names, else `hint`.
    `message` is a template: {n_expected}, {n_found}, {columns}, {diff} (the difference), {diff_sentence} (the
    same ending in one dot) and whatever `facts(data)` adds; "" takes the lab's `Wording.rows_message`.
    """

    name: str
    points: float
    expected: RowsOf
    hint: str
    columns: tuple[str, ...] = ()  # () = the step's columns
    key: tuple[str, ...] = ()
    tolerance: Decimal | None = None  # None = the lab's
    message: str = ""
    mistakes: tuple[tuple[RowsOf, str], ...] = ()
    diagnose: Callable[[Compared], str | None] | None = None
    facts: Callable[[Data], Mapping[str, Any]] | None = None
    #: a precondition checked before the comparison (e.g. data without a unique answer); failing, it is the result
    guard: Callable[[StepView], Verdict | None] | None = None


ChangelogKind = Literal["batch", "insert-only", "updating"]


@dataclass(frozen=True)
class Changelog:
    """The printed changelog is of the step's kind: a batch table (no op column), insert-only (+I rows only, as
    a window emits each result once) or updating (-U rows seen). Named `<step>: batch result (no op column)`,
    `<step>: insert-only (+I only)` or `<step>: updating result (-U seen)`.

    `why` completes "expected +I rows only (...)" / "expected -U rows (...)"; `hint` is for the wrong kind unless
    `diagnose(view)` names the mistake behind it (e.g. from the step's SQL), `batch_hint` for a batch table where
    an insert-only changelog was expected (default `hint`).
    """

    kind: ChangelogKind
    points: float
    hint: str
    why: str = ""
    batch_hint: str = ""
    diagnose: Callable[[StepView], str | None] | None = None
    #: checked before the changelog (as Rows' guard): a mistake in the step's SQL whose changelog depends on how
    #: Flink interleaves its sources (a regular outer join retracts only rows it emitted too early), so that one
    #: run's +I-only output does not pass it
    guard: Callable[[StepView], Verdict | None] | None = None


@dataclass(frozen=True)
class WholeNumbers:
    """One check per key of `expected(data)`: the row whose `key` column holds that key has that whole number in
    `column`. `name` and `hint` are templates of {step} and {key}."""

    key: str
    column: str
    expected: Callable[[Data], Mapping[str, int]]
    hint: str
    points: float = 1
    name: str = "{step}: {key}"


@dataclass(frozen=True)
class ExpectedError:
    """The step's lesson is an error: its output must show an `[ERROR]` whose reason contains `phrase`.

    `shown` is how a message quotes the expected error; `wrong_error_hint` is for another error, `no_error_hint`
    for output without one; `batch_note` is added when the output is a batch table (the error may need streaming).
    """

    name: str
    points: float
    phrase: str
    shown: str
    wrong_error_hint: str
    no_error_hint: str
    batch_note: str = ""


@dataclass(frozen=True)
class Judge:
    """A check that needs code: `judge(view)` decides once the output is usable (an unusable one fails as the
    step's other checks do). `needs_columns=False`: the judge reads none of the step's columns (e.g. only its SQL
    file), so an output that lacks one does not fail it."""

    name: str
    points: float
    judge: Callable[[StepView], Verdict]
    needs_columns: bool = True


Check = Rows | Changelog | WholeNumbers | ExpectedError | Judge


@dataclass(frozen=True)
class StepSpec:
    """One step's checks, in order. `file` defaults to `<id>.out`; `columns` are those the output must have (the
    checks that read them fail without one; `column_hints[column]` is the hint then, else "name the columns")."""

    id: str
    columns: tuple[str, ...]
    checks: tuple[Check, ...]
    file: str = ""
    column_hints: Mapping[str, str] = field(default_factory=dict)

    @property
    def out_file(self) -> str:
        return self.file or f"{self.id}.out"


@dataclass(frozen=True)
class Code:
    """Checks the lab writes in code (e.g. over compiled plans rather than a result table), in the table's order:
    `checks(ctx, data)`."""

    checks: Callable[[GradingContext, Data], list[CheckResult]]


@dataclass(frozen=True)
class Wording:
    """How the lab words an output that cannot be graded, and its default rows message.

    `problem` is a template of {step}, {file} and {error} (the reader's one line: "x.out does not exist", ...);
    an output with an error gets the hint of the first `error_hints` entry its reason matches, else `error_hint`
    ({step}); a missing one says how to run the step. With `empty_set_has_columns` an `Empty set` (no header)
    counts as an empty result with the step's columns.
    """

    problem: str = "expected {file} to hold a result; {error}."
    error_hint: str = "Fix {step}.sql and run the step again."
    error_hints: ErrorHints = ()
    rows_message: str = "expected {n_expected} rows ({columns}), found {n_found}: {diff_sentence}"
    empty_set_has_columns: bool = False


@dataclass(frozen=True)
class ReportSpec:
    """report.json: one check `report: <field>` per field against `expected(data)` (see grading.report_checks).

    `sources[field]` names the output(s) it is read from; `hint` ({field}, {source}) is for a wrong value unless
    it is what the learner's own outputs give (`from_outputs`: then the output is blamed), `field_hints` has the
    field's own or the diagnosis names the mistake: `diagnose(ctx)` is called once per
    grading (so it may read the outputs once, lazily) and returns `(field, found, expected report) -> hint or None`.
    """

    fields: tuple[str, ...]
    expected: Callable[[Data], Mapping[str, Any]]
    sources: Mapping[str, str]
    hint: str = "Read it from {source}."
    integer_fields: Collection[str] | None = None  # None = every field
    field_hints: Mapping[str, str] = field(default_factory=dict)
    diagnose: Callable[[GradingContext], Callable[[str, Any, Mapping[str, Any]], str | None]] | None = None
    tolerance: Decimal = Decimal(0)
    #: what the learner's own outputs give per field (the lab's build_report of the workspace): a wrong value equal
    #: to it blames the output, not the copying
    from_outputs: Callable[[Path], Mapping[str, Any]] | None = None
    fields_phrase: str = "the lab's fields"
    read_verb: str = "Read"


@dataclass(frozen=True)
class LabChecks:
    """A lab's whole grading as a table; calling it grades a workspace (so it is what `Lab.checks` takes).

    `load(data_dir)` reads the lab's reference data from its CSVs (FlinklabError naming a file that cannot be
    read); `steps` are graded in order, then the report. `reference_ddl()` is the lab's own `init_file` (its
    text): an error that comes from the learner's (no WATERMARK, no table, ... where the lab's has one) gets a hint
    naming it rather than the step (flinklab.grading.ddl_hints).
    """

    lab: str
    load: Callable[[Any], Data]
    steps: tuple[StepSpec | Code, ...]
    report: ReportSpec | None = None
    wording: Wording = field(default_factory=Wording)
    tolerance: Decimal = Decimal("0.01")
    init_file: str = "ddl.sql"
    reference_ddl: Callable[[], str | None] | None = None

    def __call__(self, ctx: GradingContext) -> list[CheckResult]:
        from flinklab.grading.engine import grade

        return grade(self, ctx)
