"""`flinklab new-course DIR --lab LAB`: the learner's repository, its CI workflow and the teacher's notes."""

from __future__ import annotations

import yaml
from typer.testing import CliRunner

from flinklab.cli.app import app
from flinklab.course.registry import get_lab
from flinklab.usecases.newcourse import WORKFLOW


def test_the_course_repository(tmp_path):
    course = tmp_path / "course"
    outcome = CliRunner().invoke(app, ["new-course", str(course), "--lab", "joins", "--image", "school/grader:1"])
    assert outcome.exit_code == 0, outcome.output
    lab = get_lab("joins")
    for name in lab.solution_files:  # every file the grader takes, empty but for a comment
        text = (course / name).read_text()
        assert text.startswith("--") and text.count("\n") == 1
    assert "## " in (course / "GUIDE.md").read_text()
    teacher = (course / "TEACHER.md").read_text()
    assert "flinklab image build-grader --labs joins --tag school/grader:1" in teacher
    workflow = yaml.safe_load((course / WORKFLOW).read_text())
    job = workflow["jobs"]["grade"]
    assert job["env"] == {"GRADER_IMAGE": "school/grader:1", "FLINKLAB_LAB": "joins"}
    runs = [step["run"] for step in job["steps"] if "run" in step]
    assert "--network none" in runs[0] and "/autograder/run_autograder" in runs[0]
    assert "points:" in runs[1]


def test_an_existing_folder_is_refused(tmp_path):
    (tmp_path / "x.txt").write_text("mine\n")
    outcome = CliRunner().invoke(app, ["new-course", str(tmp_path), "--lab", "joins"])
    assert outcome.exit_code == 2 and "not an empty directory" in outcome.output
    assert (tmp_path / "x.txt").read_text() == "mine\n"


def test_an_unknown_lab_is_one_line(tmp_path):
    outcome = CliRunner().invoke(app, ["new-course", str(tmp_path / "c"), "--lab", "nope"])
    assert outcome.exit_code == 2 and "nope" in outcome.output and "Traceback" not in outcome.output
