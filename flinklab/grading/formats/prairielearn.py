"""PrairieLearn's external grading `results.json` (PrairieLearn docs/externalGrading.md, "Grading results").

`gradable` (false: "invalid, not gradable", no attempt used; the reason in `message` and `format_errors`),
`score` in [0, 1], `message`, `output`, `tests[]` with `name`, `description`, `points`, `max_points`, `message`,
`output`. The file must stay under 1 MB: long texts are cut (with a note) until it fits.
"""

from __future__ import annotations

import json

from flinklab.grading.formats.model import GradeResult, feedback

#: PrairieLearn's limit on results.json ("limited to 1 MB"), with room to spare for the encoding's rounding.
SIZE_LIMIT = 1_000_000
_CUT = "\n[... cut to keep results.json under 1 MB]"


def prairielearn(result: GradeResult) -> dict:
    """The results.json object for `result`, at most SIZE_LIMIT bytes as UTF-8 JSON."""
    if not result.gradable:
        return {"gradable": False, "message": result.message, "format_errors": [result.message],
                "lab": result.lab, "learner": result.learner}
    tests = [
        {
            "name": check.name,
            "description": f"step {check.step}" if check.step else "",
            "points": check.score,
            "max_points": check.points,
            "message": "passed" if check.passed else feedback(check),
            "output": "",
        }
        for check in result.checks
    ]
    data = {
        "gradable": True,
        "score": result.fraction,
        "message": result.summary(),
        "output": "\n".join(f"{s.step}: {s.status}" + (f" ({s.error})" if s.error else "") for s in result.steps),
        "tests": tests,
        "lab": result.lab,
        "learner": result.learner,
        "points": result.score,
        "max_points": result.max_score,
    }
    return _fit(data)


def _size(data: dict) -> int:
    return len(json.dumps(data, ensure_ascii=False).encode("utf-8"))


def _fit(data: dict) -> dict:
    """Cut the longest texts (output, then each test's message) until the JSON is under SIZE_LIMIT bytes."""
    limit = 4096
    while _size(data) > SIZE_LIMIT and limit >= 64:
        if len(data["output"]) > limit:
            data["output"] = data["output"][:limit] + _CUT
        for test in data["tests"]:
            for key in ("message", "output", "name"):
                if len(test[key]) > limit:
                    test[key] = test[key][:limit] + _CUT
        limit //= 2
    if _size(data) > SIZE_LIMIT:  # thousands of checks: keep the score, say the details did not fit
        data["tests"] = []
        data["output"] = "The test details did not fit in PrairieLearn's 1 MB; the score is complete."
    return data
