"""Grading results in the formats graders read: one result model (model.py), one writer per format.

Gradescope's and PrairieLearn's `results.json`, JUnit XML, flinklab's own JSON and CodeGrade's points line. Each
writer is a pure function of a :class:`GradeResult`; :func:`write_result` writes one to a file whole, and
:func:`read_result` reads any of them back (the class report reads a class's results this way).
"""

from __future__ import annotations

from flinklab.grading.formats.model import FORMATS, GradeResult, StepOutcome
from flinklab.grading.formats.read import read_result, read_results
from flinklab.grading.formats.write import render_result, write_result

__all__ = ["FORMATS", "GradeResult", "StepOutcome", "read_result", "read_results", "render_result", "write_result"]
