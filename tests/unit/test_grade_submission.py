"""`grade_submission` before any cluster: what it takes from a submission, and when it is not gradable."""

from __future__ import annotations

import os

from flinklab.course.registry import get_lab
from flinklab.settings import Settings
from flinklab.usecases.grade import grade_submission, read_submission


def settings(tmp_path) -> Settings:
    return Settings.from_env({}, workspace_root=tmp_path / "ws", data_dir=tmp_path / "data",
                             state_dir=tmp_path / "state", cache_dir=tmp_path / "cache")


def test_only_the_labs_sql_files_are_taken(tmp_path):
    lab = get_lab("joins")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "ddl.sql").write_text("-- ddl\n")
    (sub / "count.sql").write_text("SELECT 1;\n")
    (sub / "count.out").write_text("forged output\n")
    (sub / "report.json").write_text("{}\n")
    (sub / "regular-plan.json").write_text("{}\n")
    (sub / "notes.sql").write_text("SELECT 2;\n")
    os.symlink("/etc/passwd", sub / "regular.sql")
    (sub / "interval.sql").write_bytes(b"\xff\xfe not utf-8")
    taken = read_submission(lab, sub)
    assert set(taken.files) == {"ddl.sql", "count.sql"}
    assert "symbolic link" in taken.skipped["regular.sql"] and "UTF-8" in taken.skipped["interval.sql"]


def test_an_empty_submission_is_not_gradable(tmp_path):
    sub = tmp_path / "empty"
    sub.mkdir()
    (sub / "count.out").write_text("the learner's outputs alone grade nothing\n")
    result = grade_submission(settings(tmp_path), get_lab("joins"), sub)
    assert not result.gradable and "none of the joins lab's SQL files" in result.message
    assert result.learner == "empty" and result.score == 0


def test_a_ddl_alone_is_not_gradable(tmp_path):
    sub = tmp_path / "ddl-only"
    sub.mkdir()
    (sub / "ddl.sql").write_text("CREATE TABLE t (a INT);\n")
    assert not grade_submission(settings(tmp_path), get_lab("joins"), sub).gradable


def test_a_submission_that_is_no_directory_is_not_gradable(tmp_path):
    result = grade_submission(settings(tmp_path), get_lab("joins"), tmp_path / "nothing")
    assert not result.gradable and "is not a directory" in result.message


def test_an_unreadable_submission_is_not_gradable(tmp_path):
    if os.geteuid() == 0:  # root reads a 000 directory anyway: ask the reader directly what it does with one
        sub = tmp_path / "locked"
        sub.mkdir()
        (sub / "count.sql").mkdir()  # a directory where a step file should be
        taken = read_submission(get_lab("joins"), sub)
        assert taken.skipped == {"count.sql": "not a regular file"}
        assert not grade_submission(settings(tmp_path), get_lab("joins"), sub).gradable
        return
    sub = tmp_path / "locked"
    sub.mkdir()
    (sub / "count.sql").write_text("SELECT 1;\n")
    sub.chmod(0)
    try:
        result = grade_submission(settings(tmp_path), get_lab("joins"), sub)
    finally:
        sub.chmod(0o755)
    assert not result.gradable


def test_the_cli_writes_not_gradable_and_exits_2(tmp_path):
    import json

    from typer.testing import CliRunner

    from flinklab.cli.app import app

    sub = tmp_path / "sub"
    sub.mkdir()
    results = tmp_path / "out" / "results.json"
    outcome = CliRunner().invoke(app, ["grade", "joins", str(sub), "--format", "prairielearn",
                                       "--results", str(results)])
    assert outcome.exit_code == 2, outcome.output
    data = json.loads(results.read_text())
    assert data["gradable"] is False and "none of the joins lab's SQL files" in data["message"]


def test_the_cli_refuses_a_bad_format_in_one_line(tmp_path):
    from typer.testing import CliRunner

    from flinklab.cli.app import app

    outcome = CliRunner().invoke(app, ["grade", "joins", str(tmp_path), "--format", "moodle"])
    assert outcome.exit_code == 2 and "Unknown --format 'moodle'" in outcome.output
