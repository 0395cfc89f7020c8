"""flinklab's own JSON: everything the result model holds (the steps' runs too), read back whole by the class
report."""

from __future__ import annotations

from flinklab.grading.formats.model import GradeResult

#: What `format` says in flinklab's JSON (the class report tells it from the platforms' files by it).
FORMAT_TAG = "flinklab-grade"
VERSION = 1


def flinklab_json(result: GradeResult) -> dict:
    """The JSON object for `result`."""
    return {
        "format": FORMAT_TAG,
        "version": VERSION,
        "lab": result.lab,
        "learner": result.learner,
        "gradable": result.gradable,
        "score": result.score,
        "max_score": result.max_score,
        "fraction": result.fraction,
        "summary": result.summary(),
        "message": result.message,
        "seconds": round(result.seconds, 3),
        "steps": [{"step": s.step, "status": s.status, "seconds": round(s.seconds, 3), "error": s.error}
                  for s in result.steps],
        "checks": [{"name": c.name, "step": c.step, "points": c.points, "score": c.score, "passed": c.passed,
                    "message": c.message, "hint": c.hint} for c in result.checks],
    }
