"""Which learner a results file is about when it names none: its folder when the file's name is a format's (or is
shared by files in several folders), else the file's own name."""

from __future__ import annotations

from typer.testing import CliRunner

from flinklab.grading.formats import FORMATS, GradeResult, read_result, read_results, write_result
from flinklab.grading.results import CheckResult

LEARNERS = ("ann", "bob", "cy", "di", "ed")


def anonymous(passed: bool) -> GradeResult:
    """A result as the grader image writes it: no --learner, so no name inside."""
    return GradeResult(lab="joins", gradable=True, learner="",
                       checks=[CheckResult("count: rows per source", 5, passed, step="count")])


def test_codegrade_logs_in_a_folder_each_are_named_after_their_folders(tmp_path):
    from flinklab.cli.app import app

    paths = []
    for i, name in enumerate(LEARNERS):
        path = tmp_path / "res" / name / "codegrade.out"
        write_result(anonymous(i % 2 == 0), "codegrade", path)
        paths.append(path)
    assert [r.learner for r in read_results(paths)] == list(LEARNERS)
    outcome = CliRunner().invoke(app, ["class-report", *map(str, paths)], env={"COLUMNS": "200"})
    assert outcome.exit_code == 0, outcome.output
    assert "codegrade" not in outcome.output and all(name in outcome.output for name in LEARNERS)


def test_each_formats_default_name_is_named_after_its_folder(tmp_path):
    names = {"gradescope": "results.json", "prairielearn": "results.json", "junit": "junit.xml",
             "json": "flinklab.json", "codegrade": "codegrade.out"}
    assert set(names) == set(FORMATS)
    for fmt, file_name in names.items():
        path = tmp_path / f"learner-{fmt}" / file_name
        write_result(anonymous(True), fmt, path)
        assert read_result(path).learner == f"learner-{fmt}", fmt


def test_a_file_named_after_its_learner_keeps_that_name(tmp_path):
    paths = []
    for name in ("ann", "bob"):
        path = tmp_path / "class" / f"{name}.xml"
        write_result(anonymous(True), "junit", path)
        paths.append(path)
    assert [r.learner for r in read_results(paths)] == ["ann", "bob"]


def test_one_name_in_several_folders_is_named_after_the_folders(tmp_path):
    paths = []
    for name in ("ann", "bob"):
        path = tmp_path / name / "feedback.txt"
        write_result(anonymous(True), "codegrade", path)
        paths.append(path)
    assert [r.learner for r in read_results(paths)] == ["ann", "bob"]
    assert read_result(paths[0]).learner == "feedback"  # alone, nothing says the folder is the learner


def test_a_name_inside_the_file_wins(tmp_path):
    path = tmp_path / "ann" / "results.json"
    write_result(GradeResult(lab="joins", gradable=True, learner="Ann Lee"), "json", path)
    assert read_result(path).learner == "Ann Lee"
