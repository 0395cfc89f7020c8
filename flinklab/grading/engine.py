"""The one engine behind every lab's check table (flinklab.grading.spec): read each step's output once, fail
every check of a step whose output cannot be graded with the same problem and hint, else decide each check as
its table row says. Knows no lab.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flinklab.errors import FlinklabError
from flinklab.flink.sql_split import strip_comments
from flinklab.grading.changelog import final_rows, fold_by_key
from flinklab.grading.context import GradingContext
from flinklab.grading.ddl_hints import DdlFiles, ddl_hint
from flinklab.grading.files import FileReadError
from flinklab.grading.outputs import StepChecks, error_line, format_number, hint_for_error, read_step, run_hint
from flinklab.grading.parse import ResultTable
from flinklab.grading.report_checks import report_field_checks
from flinklab.grading.results import CheckResult, failed, passed
from flinklab.grading.spec import (
    Changelog,
    Check,
    Code,
    Data,
    ExpectedError,
    Judge,
    LabChecks,
    ReportSpec,
    Rows,
    StepSpec,
    Verdict,
    WholeNumbers,
    Wording,
)
from flinklab.grading.values import RowDiff, as_int, clip, compare_rows, numbers_close


def sentence(text: str) -> str:
    """`text` ending in one dot (a difference that ends with "..." gets none added)."""
    return text if text.endswith(".") else text + "."


def one_stop(text: str) -> str:
    """`text` from a template whose `.` follows a part that ends a sentence itself: Flink's error reason (`...
    and step 3600000 ms.` + `.`) or an ellipsis (`, ...` + `.`) keeps its own end, not two."""
    if text.endswith("....") or (text.endswith("..") and not text.endswith("...")):
        return text[:-1]
    return text


def _saved(ctx: GradingContext, name: str) -> str | None:
    try:
        text = ctx.read(name)
    except FileReadError:
        return None
    return None if text is None else strip_comments(text)


def step_ddl_hint(ctx: GradingContext, lab: LabChecks, spec: StepSpec, reasons: list[str]) -> str | None:
    """The hint naming what the learner's ddl.sql lacks when the step's error comes from it (None: the step's
    own hints decide)."""
    if not reasons:
        return None
    reference = None
    if lab.reference_ddl is not None:
        try:
            reference = lab.reference_ddl()
        except OSError:
            reference = None
    files = DdlFiles(_saved(ctx, lab.init_file), reference and strip_comments(reference),
                     _saved(ctx, f"{spec.id}.sql"), lab.init_file, Path(ctx.data_dir))
    return ddl_hint(reasons, files)


class StepView(StepChecks):
    """A step's output as the checks (and the lab's judges and diagnoses) see it, with the lab's reference data."""

    def __init__(self, ctx: GradingContext, spec: StepSpec, lab: LabChecks, data: Data):
        self.ctx, self.data, self.lab = ctx, data, lab
        out = read_step(ctx.workspace, spec.out_file)
        wording = lab.wording
        if not out.ok:
            if out.missing:
                hint = run_hint(lab.lab, spec.id)
            else:
                hint = step_ddl_hint(ctx, lab, spec, out.errors) or hint_for_error(
                    "\n".join(out.errors), wording.error_hints, wording.error_hint.format(step=spec.id))
            problem = one_stop(wording.problem.format(step=spec.id, file=spec.out_file, error=out.error))
            super().__init__(out, spec.id, spec.columns, problem, hint)
            return
        if wording.empty_set_has_columns and out.table is not None and not out.table.columns \
                and not out.table.rows:
            # `Empty set` prints no header: an empty result with the step's columns.
            out.table = ResultTable(columns=list(spec.columns), rows=[], ops=out.table.ops,
                                    footer_rows=out.table.footer_rows)
        super().__init__(out, spec.id, spec.columns, column_hints=spec.column_hints)

    def final(self) -> list[dict[str, str | None]]:
        """The rows that remain at the changelog's end (a multiset)."""
        return final_rows(self.table)

    def rows(self, columns: tuple[str, ...] = ()) -> list[tuple]:
        """The final rows as tuples of `columns` (default: the step's)."""
        return [tuple(r.get(c) for c in (columns or self.columns)) for r in self.final()]

    def updates(self) -> list[str]:
        """The ops other than +I the changelog printed, sorted."""
        return sorted(op for op in self.table.ops_seen() if op != "+I")

    def ops(self) -> list[str]:
        return sorted(self.table.ops_seen())


@dataclass
class Compared:
    """A rows check's comparison, for its diagnosis: the view, the reference rows, the found rows, the diff."""

    view: StepView
    expected: list[tuple]
    found: list[tuple]
    diff: RowDiff

    @property
    def data(self) -> Data:
        return self.view.data

    def equals(self, rows: Any, tolerance: Any = None) -> bool:
        """The found rows are `rows` (a mistake's answer)."""
        tol = self.view.lab.tolerance if tolerance is None else tolerance
        return compare_rows(list(rows), self.found, tolerance=tol).ok


def _verdict(name: str, points: float, step: str, verdict: Verdict) -> CheckResult:
    if verdict.passed:
        return passed(name, points, step=step, message=verdict.message)
    return failed(name, points, verdict.message, verdict.hint, step=step)


def _rows(view: StepView, check: Rows) -> CheckResult:
    if check.guard is not None and (stop := check.guard(view)) is not None:
        return _verdict(check.name, check.points, view.step, stop)
    columns = check.columns or view.columns
    if check.key:
        found = [tuple(r.get(c) for c in columns) for r in fold_by_key(view.table, check.key).values()]
    else:
        found = view.rows(columns)
    expected = [tuple(r) for r in check.expected(view.data)]
    tolerance = view.lab.tolerance if check.tolerance is None else check.tolerance
    diff = compare_rows(expected, found, tolerance=tolerance)
    if diff.ok:
        return passed(check.name, check.points, step=view.step)
    compared = Compared(view, expected, found, diff)
    hint = next((h for rows, h in check.mistakes if compared.equals(rows(view.data), tolerance)), None)
    if hint is None and check.diagnose is not None:
        hint = check.diagnose(compared)
    facts = check.facts(view.data) if check.facts is not None else {}
    message = one_stop((check.message or view.lab.wording.rows_message).format(
        n_expected=len(expected), n_found=len(found), columns=", ".join(columns), diff=diff.describe(),
        diff_sentence=sentence(diff.describe()), **facts))
    return failed(check.name, check.points, message + view.truncated_note(), hint or check.hint, step=view.step)


_KIND_NAMES = {"batch": "batch result (no op column)", "insert-only": "insert-only (+I only)",
               "updating": "updating result (-U seen)"}


def _changelog(view: StepView, check: Changelog) -> CheckResult:
    table, step, points = view.table, view.step, check.points
    name = f"{step}: {_KIND_NAMES[check.kind]}"
    if check.guard is not None and (stop := check.guard(view)) is not None:
        return _verdict(name, points, step, stop)
    if check.kind == "batch":
        if not table.streaming:
            return passed(name, points, step=step)
        return failed(name, points, "expected a batch table (final rows only, no op column); found a streaming "
                      f"changelog with op column ({', '.join(view.ops())}).", check.hint, step=step)
    if check.kind == "insert-only":
        if not table.streaming:
            return failed(name, points, "expected a streaming changelog of +I rows; found a batch table (no op "
                          "column).", check.batch_hint or check.hint, step=step)
        updates = view.updates()
        if not updates:
            return passed(name, points, step=step)
        counts = ", ".join(f"{(table.ops or []).count(op)} {op}" for op in updates)
        return failed(name, points, f"expected +I rows only ({check.why}); found {counts}.", _kind_hint(view, check),
                      step=step)
    if "-U" in table.ops_seen():
        return passed(name, points, step=step)
    found = f"ops {', '.join(view.ops()) or 'none'}" if table.streaming else "a batch table (no op column)"
    return failed(name, points, f"expected -U rows ({check.why}); found {found}.", _kind_hint(view, check),
                  step=step)


def _kind_hint(view: StepView, check: Changelog) -> str:
    return (check.diagnose(view) if check.diagnose is not None else None) or check.hint


def _whole_numbers(view: StepView, check: WholeNumbers) -> list[CheckResult]:
    found = {} if view.problem or view.columns_problem else fold_by_key(view.table, [check.key])
    results = []
    for key, want in check.expected(view.data).items():
        name = check.name.format(step=view.step, key=key)
        if (bad := view.unusable(name, check.points)) is not None:
            results.append(bad)
            continue
        row = found.get((key,))
        raw = row.get(check.column) if row else None
        got = as_int(raw)
        if got == want:
            results.append(passed(name, check.points, step=view.step))
            continue
        if row is None:
            what = f"no row {key!r}"
        elif got is None:  # say what was there, not "None"
            what = f"{check.column} = NULL" if raw is None else \
                f"{check.column} = {clip(repr(raw))}, which is not a whole number"
        else:
            what = str(got)
        results.append(failed(name, check.points, f"expected {key} {check.column} = {want}; found {what}.",
                              check.hint.format(step=view.step, key=key), step=view.step))
    return results


def _expected_error(ctx: GradingContext, lab: LabChecks, spec: StepSpec, check: ExpectedError) -> CheckResult:
    name, points, step = check.name, check.points, spec.id
    out = read_step(ctx.workspace, spec.out_file)
    if out.missing:
        return failed(name, points, f"{spec.out_file} does not exist.", run_hint(lab.lab, step), step=step)
    if out.parsed is None:  # the file is there but cannot be read as text
        return failed(name, points, f"{out.error}.", "Run the step again so that it writes the file anew.",
                      step=step)
    reasons = out.errors
    if any(check.phrase in r for r in reasons):
        return passed(name, points, step=step)
    expected = f"expected the [ERROR] '{check.shown}'"
    if reasons:
        return failed(name, points, one_stop(f"{expected}; found another error: {error_line(reasons[0], 300)}."),
                      step_ddl_hint(ctx, lab, spec, reasons) or check.wrong_error_hint, step=step)
    table = out.parsed.table
    found = f"{len(table.rows)} rows and no [ERROR]" if table is not None else "no [ERROR] and no result"
    mode = "" if table is None or table.streaming or not check.batch_note else f" ({check.batch_note})"
    return failed(name, points, f"{expected}; found {found}{mode}.", check.no_error_hint, step=step)


def _check(view: StepView, check: Check) -> list[CheckResult]:
    if isinstance(check, WholeNumbers):
        return _whole_numbers(view, check)
    name = f"{view.step}: {_KIND_NAMES[check.kind]}" if isinstance(check, Changelog) else check.name
    # A check fails only for what it checks: a changelog's kind is in its op column whatever the other columns
    # are, and a judge may read no column at all (the step's SQL file).
    needs_columns = isinstance(check, Rows) or (isinstance(check, Judge) and check.needs_columns)
    if (bad := view.unusable(name, check.points, needs_columns)) is not None:
        return [bad]
    if isinstance(check, Rows):
        return [_rows(view, check)]
    if isinstance(check, Changelog):
        return [_changelog(view, check)]
    assert isinstance(check, Judge)
    return [_verdict(check.name, check.points, view.step, check.judge(view))]


def grade_step(ctx: GradingContext, lab: LabChecks, spec: StepSpec, data: Data) -> list[CheckResult]:
    """Every check of one step, in the table's order."""
    results: list[CheckResult] = []
    view: StepView | None = None
    for check in spec.checks:
        if isinstance(check, ExpectedError):
            results.append(_expected_error(ctx, lab, spec, check))
            continue
        view = view or StepView(ctx, spec, lab, data)
        results += _check(view, check)
    return results


def grade_report(ctx: GradingContext, lab: str, spec: ReportSpec, data: Data) -> list[CheckResult]:
    """The report's field checks as the table says."""
    expected = spec.expected(data)
    diagnose = spec.diagnose(ctx) if spec.diagnose is not None else None

    own: list[Mapping[str, Any]] = []  # what the learner's outputs give, read once and only when a hint needs it

    def outputs_give() -> Mapping[str, Any]:
        if not own:
            try:
                own.append(spec.from_outputs(ctx.workspace) if spec.from_outputs is not None else {})
            except FlinklabError:  # an output that cannot be read: the usual hint then
                own.append({})
        return own[0]

    def missing_hint(field: str) -> str | None:
        """A field missing from the report whose output gives none: blame the output, not the copying."""
        if spec.from_outputs is None or field in outputs_give():
            return None
        source = spec.sources[field]
        return (f"Your {source} give{'' if ' and ' in source else 's'} no value for it (the failed checks of its "
                f"step say why): fix that step, run it again, then add {field}.")

    def hint_for(field: str, got: Any, want: Mapping[str, Any]) -> str:
        if spec.from_outputs is not None:
            if field in outputs_give() and numbers_close(outputs_give()[field], got, spec.tolerance):
                source = spec.sources[field]
                return (f"{format_number(got)} is what your {source} give{'' if ' and ' in source else 's'}, so the "
                        "report is read right and the output itself is wrong: fix the step its failing check names, "
                        "run it again, then update report.json.")
        if diagnose is not None and (hint := diagnose(field, got, want)):
            return hint
        return spec.field_hints.get(field) or spec.hint.format(field=field, source=spec.sources[field])

    integer_fields = spec.fields if spec.integer_fields is None else spec.integer_fields
    return report_field_checks(ctx, spec.fields, expected, integer_fields=integer_fields, sources=spec.sources,
                               hint_for=hint_for, tolerance=spec.tolerance, lab_name=lab,
                               fields_phrase=spec.fields_phrase, read_verb=spec.read_verb, missing_hint=missing_hint)


def grade(lab: LabChecks, ctx: GradingContext) -> list[CheckResult]:
    """Every check of the lab: its steps in order, then its report."""
    data = lab.load(Path(ctx.data_dir))
    results: list[CheckResult] = []
    for spec in lab.steps:
        results += spec.checks(ctx, data) if isinstance(spec, Code) else grade_step(ctx, lab, spec, data)
    if lab.report is not None:
        results += grade_report(ctx, lab.lab, lab.report, data)
    return results


__all__ = ["Compared", "StepView", "Wording", "grade", "grade_report", "grade_step", "one_stop", "sentence"]
