"""Gradescope's `results.json` (https://gradescope-autograders.readthedocs.io/en/latest/specs/).

Top level: `score`, `execution_time` (seconds, an integer), `output`, `visibility`, `stdout_visibility`,
`extra_data`, `tests[]`; each test: `name`, `score`, `max_score`, `status` (passed / failed), `output`, `tags`,
`visibility`. Gradescope has no "not gradable": such a submission scores 0 with the reason as its output, and
`extra_data.gradable` is false (the class report reads it).
"""

from __future__ import annotations

from flinklab.grading.formats.model import GradeResult, feedback


def gradescope(result: GradeResult, visibility: str = "visible") -> dict:
    """The results.json object for `result` (`visibility` of the tests: visible, hidden, after_due_date,
    after_published)."""
    tests = [
        {
            "name": check.name,
            "score": check.score,
            "max_score": check.points,
            "status": "passed" if check.passed else "failed",
            "output": "" if check.passed else feedback(check),
            "tags": [check.step] if check.step else [],
            "visibility": visibility,
        }
        for check in result.checks
    ]
    return {
        "score": result.score,
        "execution_time": int(round(result.seconds)),
        "output": result.summary(),
        "visibility": visibility,
        "stdout_visibility": "hidden",  # the grader's log is for the teacher
        "extra_data": {"lab": result.lab, "learner": result.learner, "gradable": result.gradable,
                       "max_score": result.max_score},
        "tests": tests,
    }
