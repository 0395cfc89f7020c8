"""The declarative check table (grading.spec), its engine (grading.engine) and report fields (grading.report_fields),
on captured outputs (tests/data/outputs/) with a table that belongs to no lab."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from flinklab.grading import report_fields
from flinklab.grading.context import GradingContext
from flinklab.grading.report_fields import ReportField
from flinklab.grading.results import CheckResult
from flinklab.grading.spec import (
    Changelog,
    Code,
    ExpectedError,
    Judge,
    LabChecks,
    ReportSpec,
    Rows,
    StepSpec,
    WholeNumbers,
    Wording,
    ok,
    wrong,
)

OUTPUTS = Path(__file__).parent.parent / "data" / "outputs"
AGG = [("a", 2, 4), ("b", 1, None)]  # pyflink_streaming_agg.out folded per k (and pyflink_batch_agg.out)


def _ws(tmp_path: Path, **files: str) -> GradingContext:
    """A workspace holding captured outputs under new names: agg="pyflink_streaming_agg.out" -> agg.out."""
    for step, captured in files.items():
        shutil.copy(OUTPUTS / captured, tmp_path / f"{step}.out")
    return GradingContext(workspace=tmp_path, data_dir=tmp_path)


def _grade(ctx: GradingContext, *steps, wording: Wording | None = None, report: ReportSpec | None = None,
           data: object = None) -> dict[str, CheckResult]:
    results = LabChecks(lab="t", load=lambda _: data, steps=steps, wording=wording or Wording(), report=report)(ctx)
    return {r.name: r for r in results}


def test_rows_folded_per_key_and_the_changelog_kinds(tmp_path: Path):
    ctx = _ws(tmp_path, agg="pyflink_streaming_agg.out")
    found = _grade(ctx, StepSpec("agg", ("k", "n", "s"), (
        Rows("agg: per k", 2, lambda _: AGG, "GROUP BY k.", key=("k",)),
        Rows("agg: final rows", 1, lambda _: AGG, "GROUP BY k."),
        Changelog("updating", 1, "stream it", why="each row updates its k"),
        Changelog("insert-only", 1, "use a window", why="a window emits once"),
        Changelog("batch", 1, "batch it"),
    )))
    assert [r.passed for r in found.values()] == [True, True, True, False, False]
    assert found["agg: insert-only (+I only)"].message == \
        "expected +I rows only (a window emits once); found 1 +U, 1 -U."
    assert found["agg: batch result (no op column)"].message == ("expected a batch table (final rows only, no op "
                                                                  "column); found a streaming changelog with op "
                                                                  "column (+I, +U, -U).")
    assert found["agg: batch result (no op column)"].hint == "batch it"
    assert all(r.step == "agg" for r in found.values())


def test_a_batch_table_for_streaming_kinds(tmp_path: Path):
    found = _grade(_ws(tmp_path, agg="pyflink_batch_agg.out"), StepSpec("agg", ("k", "n"), (
        Changelog("updating", 1, "stream it", why="each row updates its k"),
        Changelog("insert-only", 1, "use a window", batch_hint="set streaming"),
    )))
    assert found["agg: updating result (-U seen)"].message == \
        "expected -U rows (each row updates its k); found a batch table (no op column)."
    insert_only = found["agg: insert-only (+I only)"]
    assert insert_only.hint == "set streaming" and "found a batch table" in insert_only.message


def test_a_wrong_row_set_gets_the_mistakes_hint_then_the_diagnosis_then_the_default(tmp_path: Path):
    ctx = _ws(tmp_path, agg="pyflink_batch_agg.out")
    wanted = [("a", 2, 4), ("b", 1, 0)]

    def grade(**kw) -> CheckResult:
        check = Rows("agg: rows", 2, lambda data: data, "the default hint", **kw)
        return _grade(ctx, StepSpec("agg", ("k", "n", "s"), (check,)), data=wanted)["agg: rows"]

    plain = grade()
    assert not plain.passed and plain.hint == "the default hint"
    assert plain.message == ("expected 2 rows (k, n, s), found 2: missing 1 row, e.g. (b, 1, 0); unexpected 1 row, "
                             "e.g. (b, 1, NULL).")
    assert grade(mistakes=((lambda _: [("x", 0, 0)], "not this"), (lambda _: AGG, "NULL sums"))).hint == "NULL sums"
    assert grade(diagnose=lambda c: f"{len(c.found)} found, {len(c.diff.unexpected)} unexpected").hint == \
        "2 found, 1 unexpected"
    assert grade(diagnose=lambda c: None).hint == "the default hint"
    custom = grade(message="expected {n_expected} ({what}): {diff_sentence}", facts=lambda data: {"what": "k rows"})
    assert custom.message.startswith("expected 2 (k rows): missing 1 row")
    by_two = _grade(ctx, StepSpec("agg", ("k", "n", "s"), (
        Rows("agg: k and n", 1, lambda _: [("a", 2), ("b", 1)], "h", columns=("k", "n")),)))
    assert by_two["agg: k and n"].passed


def test_a_guard_and_a_judge(tmp_path: Path):
    ctx = _ws(tmp_path, agg="pyflink_batch_agg.out")
    found = _grade(ctx, StepSpec("agg", ("k", "n", "s"), (
        Rows("agg: rows", 2, lambda _: AGG, "h", guard=lambda view: wrong("no unique answer", "fix the data")),
        Judge("agg: two keys", 1, lambda view: ok(f"{len(view.rows())} keys") if len(view.rows()) == 2 else
              wrong("not two", "h")),
    )))
    assert (found["agg: rows"].passed, found["agg: rows"].message, found["agg: rows"].hint) == \
        (False, "no unique answer", "fix the data")
    assert found["agg: two keys"].passed and found["agg: two keys"].message == "2 keys"


def test_an_unusable_output_fails_every_check_of_its_step_alike(tmp_path: Path):
    ctx = _ws(tmp_path, bad="sqlclient2x_error.out", cols="pyflink_batch_agg.out")
    steps = (
        StepSpec("gone", ("k",), (Rows("gone: rows", 2, lambda _: [], "h"), Changelog("batch", 1, "h"),
                                  WholeNumbers("k", "n", lambda _: {"a": 1, "b": 2}, "h"))),
        StepSpec("bad", ("k",), (Rows("bad: rows", 1, lambda _: [], "h"), Judge("bad: judged", 1, lambda v: ok()))),
        StepSpec("cols", ("k", "orders"), (Rows("cols: rows", 1, lambda _: [], "h"),)),
    )
    wording = Wording(error_hints=((("not found within",), "Create the table first."),))
    found = _grade(ctx, *steps, wording=wording)
    gone = [r for r in found.values() if r.step == "gone"]
    assert [r.name for r in gone] == ["gone: rows", "gone: batch result (no op column)", "gone: a", "gone: b"]
    assert {(r.passed, r.message, r.hint) for r in gone} == {
        (False, "expected gone.out to hold a result; gone.out does not exist.",
         "Run the gone step: `sql-client.sh -i ddl.sql -f gone.sql > gone.out 2>&1` in the workspace (or "
         "`flinklab run t --only gone`).")}
    bad = {(r.message, r.hint) for r in found.values() if r.step == "bad"}
    assert len(bad) == 1 and bad.pop()[1] == "Create the table first."
    assert found["cols: rows"].message == \
        "expected the columns k, orders; cols.out has no orders (its columns: k, n, s)."
    assert found["cols: rows"].hint == "Name the result columns as the lab asks: k, orders."


def test_a_missing_column_fails_only_the_checks_that_read_columns(tmp_path: Path):
    """The changelog kind is in the op column, and a judge that reads only the SQL reads no column: a result
    without one of the step's columns fails its rows (with the lab's hint for that column), not those."""
    ctx = _ws(tmp_path, cols="pyflink_streaming_agg.out")
    found = _grade(ctx, StepSpec("cols", ("k", "orders", "n"), (
        Rows("cols: rows", 2, lambda _: [], "h"),
        Changelog("updating", 1, "h"),
        Judge("cols: reads the SQL", 1, lambda view: ok(), needs_columns=False),
        Judge("cols: reads the rows", 1, lambda view: ok()),
        WholeNumbers("k", "n", lambda _: {"a": 1}, "h"),
    ), column_hints={"orders": "Count the rows AS orders.", "n": "never used: n is there"}))
    assert {n for n, r in found.items() if r.passed} == {"cols: updating result (-U seen)", "cols: reads the SQL"}
    for name in ("cols: rows", "cols: reads the rows", "cols: a"):
        assert found[name].message.startswith("expected the columns k, orders, n; cols.out has no orders"), name
        assert found[name].hint == "Count the rows AS orders.", name


def test_an_empty_set_with_the_steps_columns(tmp_path: Path):
    ctx = _ws(tmp_path, none="pyflink_batch_empty.out")
    step = StepSpec("none", ("k", "n"), (Rows("none: rows", 1, lambda _: [], "h"),))
    assert not _grade(ctx, step)["none: rows"].passed  # `Empty set` prints no header: no column k, n
    assert _grade(ctx, step, wording=Wording(empty_set_has_columns=True))["none: rows"].passed


def test_whole_numbers_per_key(tmp_path: Path):
    found = _grade(_ws(tmp_path, agg="pyflink_batch_agg.out"), StepSpec("agg", ("k", "n", "s"), (
        WholeNumbers("k", "n", lambda _: {"a": 2, "b": 5, "c": 1}, "COUNT the {key} rows"),
        WholeNumbers("k", "s", lambda _: {"b": 0}, "h", name="{step}: sum of {key}"),
    )))
    assert found["agg: a"].passed
    assert (found["agg: b"].message, found["agg: b"].hint) == ("expected b n = 5; found 1.", "COUNT the b rows")
    assert found["agg: c"].message == "expected c n = 1; found no row 'c'."
    assert found["agg: sum of b"].message == "expected b s = 0; found s = NULL."


@pytest.mark.parametrize(("captured", "phrase", "passed", "message"), [
    ("sqlclient2x_error.out", "not found within", True, ""),
    ("sqlclient2x_error.out", "multiple of slide", False,
     "expected the [ERROR] '... multiple ...'; found another error: org.apache.calcite.sql.validate."
     "SqlValidatorException: Object 'db_lab' not found within 'paimon'."),
    ("pyflink_batch_agg.out", "multiple of slide", False,
     "expected the [ERROR] '... multiple ...'; found 2 rows and no [ERROR] (a batch table)."),
    ("pyflink_streaming_window.out", "multiple of slide", False,
     "expected the [ERROR] '... multiple ...'; found 2 rows and no [ERROR]."),
])
def test_an_expected_error(tmp_path: Path, captured: str, phrase: str, passed: bool, message: str):
    check = ExpectedError("err: rejected", 1, phrase, "... multiple ...", "wrong error", "no error", "a batch table")
    result = _grade(_ws(tmp_path, err=captured), StepSpec("err", (), (check,)))["err: rejected"]
    assert (result.passed, result.message) == (passed, message)
    if not passed:
        assert result.hint == ("wrong error" if "another error" in message else "no error")


def test_report_fields_build_the_report_and_name_their_sources(tmp_path: Path):
    ctx = _ws(tmp_path, agg="pyflink_streaming_agg.out", win="pyflink_streaming_window.out")
    fields = (
        ReportField("keys", ("agg",)),  # final rows: a and b
        ReportField("changes", ("agg",), added=True),  # +I, +I, +U
        ReportField("n_total", ("agg",), "sum", "n", key=("k",)),
        ReportField("windows", ("win",), "distinct", "window_start"),
        ReportField("both", ("agg", "win"), lambda outs: len(outs["agg"].table.rows) + len(outs["win"].table.rows)),
        ReportField("no_column", ("agg",), "sum", "orders"),  # left out: agg.out has no column orders
        ReportField("no_output", ("gone",)),  # left out: gone.out does not exist
    )
    built = report_fields.build_report(tmp_path, fields)
    assert built == {"keys": 2, "changes": 3, "n_total": 3, "windows": 2, "both": 6}
    assert report_fields.sources(fields)["both"] == "agg.out and win.out"
    assert report_fields.names(fields)[0] == "keys"

    (tmp_path / "report.json").write_text(json.dumps({**built, "keys": 3}), encoding="utf-8")
    spec = ReportSpec(("keys", "windows"), lambda data: {"keys": 2, "windows": 2},
                      report_fields.sources(fields), hint="Count the rows of {source}.")
    found = _grade(ctx, Code(lambda ctx, data: []), report=spec)
    assert found["report: windows"].passed
    assert (found["report: keys"].message, found["report: keys"].hint) == \
        ("expected keys = 2; found 3.", "Count the rows of agg.out.")
    diagnosed = _grade(ctx, report=ReportSpec(("keys",), lambda data: {"keys": 2}, {"keys": "agg.out"},
                                              diagnose=lambda ctx: lambda field, got, want: f"{got} is one too many"))
    assert diagnosed["report: keys"].hint == "3 is one too many"


def test_code_entries_keep_their_place(tmp_path: Path):
    ctx = _ws(tmp_path, agg="pyflink_batch_agg.out")
    made = CheckResult(name="code: made", points=1, passed=True, step="code")
    results = LabChecks(lab="t", load=lambda _: None, steps=(
        Code(lambda ctx, data: [made]),
        StepSpec("agg", ("k",), (Changelog("batch", 1, "h"),)),
    ))(ctx)
    assert [r.name for r in results] == ["code: made", "agg: batch result (no op column)"]


def test_messages_end_in_one_full_stop():
    """A template's `.` after Flink's own sentence or after an ellipsis adds no second one."""
    from flinklab.grading.engine import one_stop

    assert one_stop("shows an error: ... but got maxSize 600000 ms and step 3600000 ms..") == \
        "shows an error: ... but got maxSize 600000 ms and step 3600000 ms."
    assert one_stop("missing 24 rows, e.g. (A, 1), (B, 2), ....") == "missing 24 rows, e.g. (A, 1), (B, 2), ..."
    assert one_stop("found 5: missing 1 row, e.g. (A, 1).") == "found 5: missing 1 row, e.g. (A, 1)."
    assert one_stop("the list goes on ...") == "the list goes on ..."
