"""The shared grading readers: one saved `.out` file -> StepOutput, and the per-field report.json checks.

Outputs are the captured ones under tests/data/outputs/ (real client and runner output); the report checks run on
report.json files written into a temporary workspace, with field names that belong to no lab.
"""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from flinklab.grading.context import GradingContext
from flinklab.grading.outputs import StepChecks, error_line, format_number, read_step
from flinklab.grading.report_checks import report_field_checks

OUTPUTS = Path(__file__).parent.parent / "data" / "outputs"

FIELDS = ("rows", "total")
EXPECTED = {"rows": 12, "total": 3.5}
SOURCES = {"rows": "a.out", "total": "a.out and b.out"}


# ---- read_step ------------------------------------------------------------------------------------------------


def test_a_table_is_read(tmp_path: Path):
    shutil.copy(OUTPUTS / "pyflink_streaming_agg.out", tmp_path / "agg.out")
    out = read_step(tmp_path, "agg.out")
    assert out.ok and out.error == "" and not out.missing and out.errors == []
    assert out.table is not None and out.table.streaming and out.table.complete
    assert out.parsed is not None and out.parsed.table is out.table


def test_a_missing_file(tmp_path: Path):
    out = read_step(tmp_path, "nothing.out")
    assert not out.ok and out.missing and out.parsed is None and out.errors == []
    assert out.error == "nothing.out does not exist"


def test_crlf_reads_like_lf(tmp_path: Path):
    for name in ("derived_crlf_streaming_agg.out", "pyflink_streaming_agg.out",
                 "derived_crlf_sqlclient2x_error.out", "sqlclient2x_error.out"):
        shutil.copy(OUTPUTS / name, tmp_path / name)
    crlf, lf = read_step(tmp_path, "derived_crlf_streaming_agg.out"), read_step(tmp_path, "pyflink_streaming_agg.out")
    assert crlf.ok and crlf.table == lf.table
    crlf, lf = read_step(tmp_path, "derived_crlf_sqlclient2x_error.out"), read_step(tmp_path, "sqlclient2x_error.out")
    assert crlf.errors == lf.errors and "\r" not in crlf.error
    assert crlf.error.replace("derived_crlf_", "") == lf.error


def test_an_error_names_the_root_cause_line(tmp_path: Path):
    shutil.copy(OUTPUTS / "sqlclient2x_error.out", tmp_path / "x.out")
    out = read_step(tmp_path, "x.out")
    assert not out.ok and not out.missing and out.table is None
    assert out.error == ("x.out shows an error: org.apache.calcite.sql.validate.SqlValidatorException: Object "
                         "'db_lab' not found within 'paimon'")
    assert out.errors == [out.error.split(": ", 1)[1]]


def test_a_multiline_reason_is_quoted_by_its_first_line(tmp_path: Path):
    # What a parser error looks like: `<class>: <message>` of the root cause, then the message's continuation.
    (tmp_path / "x.out").write_text(
        "Flink SQL> SELEC 1;\n[ERROR] Could not execute SQL statement. Reason:\n"
        "org.apache.flink.sql.parser.impl.ParseException: Encountered \"SELEC\" at line 1, column 1.\n"
        "Was expecting one of:\n    \"ABORT\" ...\n\n", encoding="utf-8")
    out = read_step(tmp_path, "x.out")
    assert out.error == ('x.out shows an error: org.apache.flink.sql.parser.impl.ParseException: Encountered '
                         '"SELEC" at line 1, column 1.')
    assert "Was expecting one of" in out.errors[0]  # the whole reason stays for hints that look for a phrase


def test_a_table_followed_by_an_error_is_not_ok(tmp_path: Path):
    shutil.copy(OUTPUTS / "derived_table_then_error.out", tmp_path / "x.out")
    out = read_step(tmp_path, "x.out")
    assert not out.ok and out.table is None and out.error.startswith("x.out shows an error: ")
    assert out.parsed is not None and out.parsed.table is not None  # still there for a check that wants it


def test_no_table_and_no_error(tmp_path: Path):
    (tmp_path / "x.out").write_text("Flink SQL> SET 'a' = 'b';\n[INFO] Execute statement succeeded.\n",
                                    encoding="utf-8")
    out = read_step(tmp_path, "x.out")
    assert not out.ok and out.error == "x.out holds no result table" and out.errors == []


def test_error_line_limits_and_empty_reason():
    assert error_line("  \n ") == "an error"
    assert error_line("a: " + "x" * 500, 10) == "a: xxxxxxx"
    assert len(error_line("a: " + "x" * 500)) == 400


@pytest.mark.parametrize(
    ("value", "text"),
    [(Decimal("120.00"), "120"), (Decimal("1E+2"), "100"), ("0.50", "0.50"), (238, "238"), (-1.5, "-1.5"),
     (None, "NULL"), ("n/a", "n/a"), (True, "True")],
)
def test_format_number(value, text):
    assert format_number(value) == text


# ---- StepChecks -----------------------------------------------------------------------------------------------


def test_step_checks_with_the_columns_is_usable(tmp_path: Path):
    shutil.copy(OUTPUTS / "pyflink_streaming_agg.out", tmp_path / "agg.out")
    step = StepChecks(read_step(tmp_path, "agg.out"), "agg", ("k", "n"))
    assert step.problem == "" and step.unusable("agg: rows", 2) is None
    assert step.table.columns == ["k", "n", "s"] and step.truncated_note() == ""


def test_step_checks_names_absent_columns(tmp_path: Path):
    shutil.copy(OUTPUTS / "pyflink_streaming_agg.out", tmp_path / "agg.out")
    step = StepChecks(read_step(tmp_path, "agg.out"), "agg", ("k", "orders", "revenue"))
    bad = step.unusable("agg: rows", 2)
    assert bad is not None and not bad.passed and (bad.points, bad.step) == (2, "agg")
    assert bad.message == \
        "expected the columns k, orders, revenue; agg.out has no orders, revenue (its columns: k, n, s)."
    assert bad.hint == "Name the result columns as the lab asks: k, orders, revenue."


def test_step_checks_reports_the_labs_problem(tmp_path: Path):
    out = read_step(tmp_path, "agg.out")
    step = StepChecks(out, "agg", ("k",), out.error + ".", "run it")
    bad = step.unusable("agg: rows", 1)
    assert bad is not None and (bad.message, bad.hint) == ("agg.out does not exist.", "run it")


def test_step_checks_notes_a_table_without_footer(tmp_path: Path):
    shutil.copy(OUTPUTS / "derived_truncated_streaming_agg.out", tmp_path / "agg.out")
    step = StepChecks(read_step(tmp_path, "agg.out"), "agg", ("k",))
    assert step.truncated_note() == " (agg.out ends without a footer: was the run cut short?)"


# ---- report_field_checks --------------------------------------------------------------------------------------


def grade(tmp_path: Path, report: object | None, *, raw: str | None = None) -> dict:
    calls: list[tuple] = []

    def hint_for(field, got, expected):
        calls.append((field, got, dict(expected)))
        return f"hint for {field}"

    if raw is not None:
        (tmp_path / "report.json").write_text(raw, encoding="utf-8")
    elif report is not None:
        (tmp_path / "report.json").write_text(json.dumps(report), encoding="utf-8")
    results = report_field_checks(
        GradingContext(workspace=tmp_path, data_dir=tmp_path), FIELDS, EXPECTED, integer_fields={"rows"},
        sources=SOURCES, hint_for=hint_for, tolerance=Decimal("0.01"), lab_name="somelab")
    assert [r.name for r in results] == ["report: rows", "report: total"]
    assert all(r.points == 1 and r.step == "report" for r in results)
    return {"results": {r.name.split(": ")[1]: r for r in results}, "calls": calls}


def test_right_values_pass_within_the_tolerance(tmp_path: Path):
    got = grade(tmp_path, {"rows": 12, "total": 3.509, "extra": "ignored"})
    assert all(r.passed for r in got["results"].values()) and got["calls"] == []


@pytest.mark.parametrize(
    ("raw", "problem"),
    [(None, "report.json does not exist."), ("rows=12", "report.json is not valid JSON ("),
     ("[12, 3.5]", "report.json is not a JSON object.")],
)
def test_an_unreadable_report_is_one_failure_worth_every_field(tmp_path: Path, raw, problem):
    if raw is not None:
        (tmp_path / "report.json").write_text(raw, encoding="utf-8")
    results = report_field_checks(
        GradingContext(workspace=tmp_path, data_dir=tmp_path), FIELDS, EXPECTED, integer_fields={"rows"},
        sources=SOURCES, hint_for=lambda *a: "never", tolerance=Decimal("0.01"), lab_name="somelab")
    assert len(results) == 1, results
    result = results[0]
    assert (result.name, result.points, result.passed, result.step) == ("report: report.json", 2, False, "report")
    assert result.message.startswith(problem) and result.message.endswith("2 field(s), 1 point each: rows, total.")
    assert result.hint == ("Write report.json with the lab's fields (or `flinklab run somelab`, which writes it "
                           "from the outputs).")


def test_a_missing_field_names_its_source(tmp_path: Path):
    results = grade(tmp_path, {"rows": 12})["results"]
    assert results["rows"].passed
    assert results["total"].message == "expected total = 3.5; the field is missing."
    assert results["total"].hint == "Read it from a.out and b.out (run that step first if it is missing)."


@pytest.mark.parametrize(
    ("report", "field", "message", "hint"),
    [
        ({"rows": 12.0, "total": 3.5}, "rows", "expected a whole number (12); found 12.0.",
         "Write rows as a whole number (an INT), not a DOUBLE: 12 without the decimal point."),
        ({"rows": 12.5, "total": 3.5}, "rows", "expected a whole number (12); found 12.5.",
         "Write rows as a whole number (an INT), not a DOUBLE."),
        ({"rows": True, "total": 3.5}, "rows", "expected a whole number (12); found true.",
         "Write rows as a whole number (an INT), not a BOOLEAN."),
        ({"rows": "12", "total": 3.5}, "rows", 'expected a whole number (12); found "12".',
         "Write rows as a whole number (an INT), not a STRING: 12 without the quotes."),
        ({"rows": "twelve", "total": 3.5}, "rows", 'expected a whole number (12); found "twelve".',
         "Write rows as a whole number (an INT), not a STRING."),
        ({"rows": None, "total": 3.5}, "rows", "expected a whole number (12); found null.",
         "Write rows as a whole number (an INT), not NULL."),
        ({"rows": [12], "total": 3.5}, "rows", "expected a whole number (12); found [12].",
         "Write rows as a whole number (an INT), not an ARRAY."),
        ({"rows": 12, "total": "3.5"}, "total", 'expected a number (3.5); found "3.5".',
         "Write total as a number (an INT, DOUBLE or DECIMAL), not a STRING: 3.5 without the quotes."),
        ({"rows": 12, "total": False}, "total", "expected a number (3.5); found false.",
         "Write total as a number (an INT, DOUBLE or DECIMAL), not a BOOLEAN."),
        ({"rows": 12, "total": {"v": 3.5}}, "total", 'expected a number (3.5); found {"v": 3.5}.',
         "Write total as a number (an INT, DOUBLE or DECIMAL), not a MAP."),
    ],
)
def test_wrong_types(tmp_path: Path, report, field, message, hint):
    got = grade(tmp_path, report)
    failed = {f: r for f, r in got["results"].items() if not r.passed}
    assert set(failed) == {field}
    assert (failed[field].message, failed[field].hint) == (message, hint)
    assert got["calls"] == []


def test_a_number_field_takes_a_whole_number(tmp_path: Path):
    assert grade(tmp_path, {"rows": 12, "total": 4})["results"]["total"].message == "expected total = 3.5; found 4."


def test_a_wrong_value_gets_the_labs_hint(tmp_path: Path):
    got = grade(tmp_path, {"rows": 24, "total": 3.52})
    failed = {f: r for f, r in got["results"].items() if not r.passed}
    assert set(failed) == {"rows", "total"}
    assert failed["rows"].message == "expected rows = 12; found 24."
    assert failed["total"].message == "expected total = 3.5; found 3.52."
    assert failed["rows"].hint == "hint for rows"
    assert got["calls"] == [("rows", 24, EXPECTED), ("total", 3.52, EXPECTED)]


def test_the_hint_wording_can_follow_the_lab(tmp_path: Path):
    results = report_field_checks(
        GradingContext(workspace=tmp_path, data_dir=tmp_path), FIELDS, EXPECTED, integer_fields=(), sources=SOURCES,
        hint_for=lambda f, g, e: "", tolerance=Decimal("0.01"), lab_name="otherlab", fields_phrase="the two fields",
        read_verb="Copy")
    assert results[0].hint == ("Write report.json with the two fields (or `flinklab run otherlab`, which writes it "
                               "from the outputs).")
    (tmp_path / "report.json").write_text("{}", encoding="utf-8")
    results = report_field_checks(
        GradingContext(workspace=tmp_path, data_dir=tmp_path), FIELDS, EXPECTED, integer_fields=(), sources=SOURCES,
        hint_for=lambda f, g, e: "", tolerance=Decimal("0.01"), lab_name="otherlab", read_verb="Copy")
    assert results[0].hint == "Copy it from a.out (run that step first if it is missing)."
