"""Each results format against its platform's published spec, and read back by the class report's reader.

The schemas below transcribe the published field lists: Gradescope's "Autograder Specifications" (output format
of results.json, https://gradescope-autograders.readthedocs.io/en/latest/specs/) and PrairieLearn's
"External Grading" page (docs/externalGrading.md, "Grading results"); they are checked with jsonschema, JUnit XML
is read with junitparser, and CodeGrade's points line with the float pattern of its Capture Points test.
"""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

from flinklab.grading.formats import FORMATS, GradeResult, StepOutcome, read_result, render_result, write_result
from flinklab.grading.formats.prairielearn import SIZE_LIMIT, prairielearn
from flinklab.grading.results import CheckResult

GRADESCOPE_SCHEMA = {
    "type": "object",
    "properties": {
        "score": {"type": "number"},
        "execution_time": {"type": "integer", "minimum": 0},
        "output": {"type": "string"},
        "output_format": {"enum": ["text", "html", "simple_format", "md", "ansi"]},
        "visibility": {"enum": ["hidden", "after_due_date", "after_published", "visible"]},
        "stdout_visibility": {"enum": ["hidden", "after_due_date", "after_published", "visible"]},
        "extra_data": {"type": "object"},
        "tests": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "score": {"type": "number"},
                "max_score": {"type": "number"},
                "status": {"enum": ["passed", "failed"]},
                "name": {"type": "string"},
                "number": {"type": "string"},
                "output": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "visibility": {"enum": ["hidden", "after_due_date", "after_published", "visible"]},
                "extra_data": {"type": "object"},
            },
            "required": ["score", "max_score", "name"],
            "additionalProperties": False,
        }},
    },
    "required": ["score", "tests"],
    "additionalProperties": False,
}

_PL_TEST = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "description": {"type": "string"}, "points": {"type": "number"},
                   "max_points": {"type": "number"}, "message": {"type": "string"}, "output": {"type": "string"},
                   "images": {"type": "array"}},
    "required": ["name", "points", "max_points"],
}
PRAIRIELEARN_SCHEMA = {
    "type": "object",
    "oneOf": [
        {"properties": {"gradable": {"const": True}, "score": {"type": "number", "minimum": 0, "maximum": 1},
                        "message": {"type": "string"}, "output": {"type": "string"},
                        "tests": {"type": "array", "items": _PL_TEST}},
         "required": ["score"]},
        {"properties": {"gradable": {"const": False}, "message": {"type": "string"},
                        "format_errors": {"oneOf": [{"type": "string"},
                                                    {"type": "array", "items": {"type": "string"}}]}},
         "required": ["gradable"]},
    ],
}
#: CodeGrade's Capture Points test captures a float (its `\f`) from the output; the score is the last line
CODEGRADE_FLOAT = re.compile(r"^(-?\d+(?:\.\d+)?)$")


def graded() -> GradeResult:
    checks = [
        CheckResult("count: rows per source", 5, True, step="count"),
        CheckResult("interval: rows (0 s and 7200 s in, 7201 s out)", 10, False,
                    message="expected 41 rows, found 43", hint="BETWEEN includes both ends: use < for 2 h",
                    step="interval"),
        CheckResult("temporal: rate at order time", 5, False, message="temporal.out is missing", step="temporal"),
        CheckResult("report: matched_orders", 2, True, step=""),
    ]
    return GradeResult(lab="joins", gradable=True, checks=checks, learner="alice", seconds=41.6,
                       steps=[StepOutcome("count", "ok", 3.2), StepOutcome("temporal", "timed out", 60.0,
                                                                            "temporal.sql did not finish in 60 s")])


def not_graded() -> GradeResult:
    return GradeResult(lab="joins", gradable=False, learner="bob",
                       message="The submission holds none of the joins lab's SQL files (ddl.sql, count.sql).")


def test_gradescope_follows_the_spec():
    for result in (graded(), not_graded()):
        data = json.loads(render_result(result, "gradescope"))
        jsonschema.validate(data, GRADESCOPE_SCHEMA)
        assert data["score"] == result.score
    data = json.loads(render_result(graded(), "gradescope"))
    assert data["score"] == 7 and sum(t["max_score"] for t in data["tests"]) == 22
    assert data["execution_time"] == 42
    failed = data["tests"][1]
    assert failed["status"] == "failed" and failed["score"] == 0
    assert "expected 41 rows, found 43" in failed["output"] and "hint: BETWEEN includes" in failed["output"]
    assert failed["tags"] == ["interval"]


def test_prairielearn_follows_the_spec():
    data = json.loads(render_result(graded(), "prairielearn"))
    jsonschema.validate(data, PRAIRIELEARN_SCHEMA)
    assert data["gradable"] is True and data["score"] == pytest.approx(7 / 22)
    assert [t["points"] for t in data["tests"]] == [5, 0, 0, 2]
    assert "hint: BETWEEN includes" in data["tests"][1]["message"]
    refused = json.loads(render_result(not_graded(), "prairielearn"))
    jsonschema.validate(refused, PRAIRIELEARN_SCHEMA)
    assert refused["gradable"] is False and "none of the joins lab's SQL files" in refused["message"]
    assert "score" not in refused


def test_prairielearn_stays_under_one_megabyte():
    huge = graded()
    huge.checks = [CheckResult(f"check {i}", 1, False, message="x" * 20_000, hint="h" * 5_000, step="s")
                   for i in range(200)]
    data = prairielearn(huge)
    encoded = json.dumps(data, ensure_ascii=False).encode("utf-8")
    assert len(encoded) <= SIZE_LIMIT
    jsonschema.validate(data, PRAIRIELEARN_SCHEMA)
    assert data["score"] == 0 and len(data["tests"]) == 200


def test_junit_reads_in_junitparser(tmp_path):
    from junitparser import Error, Failure, JUnitXml

    path = tmp_path / "grade.xml"
    write_result(graded(), "junit", path)
    xml = JUnitXml.fromfile(str(path))
    suites = list(xml)
    assert len(suites) == 1 and suites[0].tests == 4 and suites[0].failures == 2 and suites[0].errors == 0
    cases = {case.name: case for case in suites[0]}
    interval = cases["interval: rows (0 s and 7200 s in, 7201 s out)"]
    assert interval.classname == "joins.interval"
    assert isinstance(interval.result[0], Failure) and "hint: BETWEEN" in interval.result[0].text
    assert cases["count: rows per source"].is_passed
    write_result(not_graded(), "junit", path)
    case = next(iter(next(iter(JUnitXml.fromfile(str(path))))))
    assert isinstance(case.result[0], Error) and "none of the joins lab's SQL files" in case.result[0].message


def test_codegrade_points_line():
    text = render_result(graded(), "codegrade").decode()
    last = text.rstrip("\n").splitlines()[-1]
    found = CODEGRADE_FLOAT.match(last)
    assert found and float(found.group(1)) == pytest.approx(7 / 22, abs=1e-4)
    assert "FAIL [interval] interval: rows" in text and "hint: BETWEEN includes" in text
    assert render_result(not_graded(), "codegrade").decode().rstrip().splitlines()[-1] == "0.0000"


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_reads_back(tmp_path, fmt):
    path = tmp_path / "alice" / "results.out"
    write_result(graded(), fmt, path)
    back = read_result(path)
    assert back.gradable and back.score == 7 and back.max_score == 22
    assert back.learner == "alice"
    interval = next(c for c in back.checks if c.name.startswith("interval"))
    assert not interval.passed and interval.hint == "BETWEEN includes both ends: use < for 2 h"
    assert interval.message == "expected 41 rows, found 43"
    assert interval.step == "interval"
    write_result(not_graded(), fmt, path)
    assert read_result(path).gradable is False


def test_a_file_of_no_format_is_one_line_error(tmp_path):
    from flinklab.errors import UsageError

    path = tmp_path / "notes.txt"
    path.write_text("hello\n")
    with pytest.raises(UsageError, match="not a results file"):
        read_result(path)
