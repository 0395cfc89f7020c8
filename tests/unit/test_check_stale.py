"""`flinklab check` fails a step whose SQL file is missing, renamed, empty or changed since its output was written,
decided by content (the statements the output echoes against the file), never by file times; an output that echoes
nothing or glues its echo (real Flink's client, PyFlink) still grades.

The workspace is the windows lab's captured solution outputs (tests/data/windows/outputs/solution) with the
reference SQL that wrote them; every case changes one real file of it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from helpers.env import make_settings

from flinklab.course.registry import get_lab
from flinklab.grading.freshness import StepFiles, echoed_statements, stale_step
from flinklab.grading.results import GradeReport
from flinklab.usecases.check import grade_lab

DATA = Path(__file__).resolve().parent.parent / "data"
LAB = get_lab("windows")
TUMBLE = LAB.step("tumble")


@pytest.fixture
def settings(tmp_path: Path):
    settings = make_settings(tmp_path)
    workspace = settings.workspace(LAB.name)
    shutil.copytree(DATA / "windows" / "outputs" / "solution", workspace)
    for name in LAB.solution_files:
        shutil.copy(LAB.solution_dir / name, workspace / name)
    for path in LAB.data_files():
        shutil.copy(path, settings.data_dir / path.name)
    return settings


def _step_results(report: GradeReport, step: str) -> list:
    results = [r for r in report.results if r.step == step]
    assert results, f"no checks of step {step}"
    return results


def _only_step_fails(report: GradeReport, step: str, message: str, hint_part: str) -> None:
    """Every check of `step` fails with `message` (and a hint naming the command), every other step's passes."""
    for result in _step_results(report, step):
        assert not result.passed
        assert result.message == message
        assert hint_part in result.hint
        assert f"flinklab run windows --only {step}" in result.hint
    others = [r for r in report.results if r.step not in (step, "report")]
    assert others and all(r.passed for r in others), [r.name for r in others if not r.passed]


def test_the_reference_workspace_is_fresh(settings):
    report = grade_lab(settings, LAB)
    assert report.all_passed, [(r.name, r.message) for r in report.failures]


def test_sql_file_never_written(settings):
    (settings.workspace("windows") / "tumble.sql").unlink()
    _only_step_fails(grade_lab(settings, LAB), "tumble",
                     "tumble.sql does not exist, so tumble.out is left from SQL that is gone.",
                     "Save the step's query as tumble.sql")


def test_sql_file_renamed(settings):
    workspace = settings.workspace("windows")
    (workspace / "tumble.sql").rename(workspace / "tumble_v1.sql")
    _only_step_fails(grade_lab(settings, LAB), "tumble",
                     "tumble.sql does not exist, so tumble.out is left from SQL that is gone.",
                     "`sql-client.sh -i ddl.sql -f tumble.sql > tumble.out 2>&1`")


def test_sql_file_empty(settings):
    (settings.workspace("windows") / "session.sql").write_text("", encoding="utf-8")
    _only_step_fails(grade_lab(settings, LAB), "session",
                     "session.sql holds no SQL statement (it is empty or only comments), so session.out is not "
                     "its output.", "Write the step's query in session.sql")


def test_sql_file_only_comments(settings):
    (settings.workspace("windows") / "session.sql").write_text("-- TODO: the session windows\n/* later */\n",
                                                               encoding="utf-8")
    _only_step_fails(grade_lab(settings, LAB), "session",
                     "session.sql holds no SQL statement (it is empty or only comments), so session.out is not "
                     "its output.", "Write the step's query in session.sql")


def test_sql_file_edited_after_its_run(settings):
    sql = settings.workspace("windows") / "hop.sql"
    text = sql.read_text(encoding="utf-8")
    assert "INTERVAL '5' MINUTES" in text
    sql.write_text(text.replace("INTERVAL '5' MINUTES", "INTERVAL '2' MINUTES"), encoding="utf-8")
    os.utime(sql, (1_000_000_000, 1_000_000_000))  # older than hop.out: file times must not decide
    _only_step_fails(grade_lab(settings, LAB), "hop", "hop.sql was changed after hop.out was written: run it again.",
                     "Run it again: `sql-client.sh -i ddl.sql -f hop.sql > hop.out 2>&1`")


def test_statement_added_after_its_run(settings):
    sql = settings.workspace("windows") / "tumble.sql"
    sql.write_text(sql.read_text(encoding="utf-8") + "\nSELECT COUNT(*) FROM orders;\n", encoding="utf-8")
    _only_step_fails(grade_lab(settings, LAB), "tumble",
                     "tumble.sql was changed after tumble.out was written: run it again.", "Run it again")


def test_comments_and_spacing_edited_after_its_run_still_grade(settings):
    sql = settings.workspace("windows") / "tumble.sql"
    text = sql.read_text(encoding="utf-8")
    sql.write_text("-- my notes\n" + text.replace("FROM TUMBLE(", "FROM   TUMBLE(\n    ") + "\n-- done\n",
                   encoding="utf-8")
    os.utime(sql, None)  # newer than tumble.out: still the same statements
    assert grade_lab(settings, LAB).all_passed


def test_output_stopped_at_its_error_is_fresh(settings):
    """hop_reversed's lesson is Flink's rejection: the run stops at the failing statement, whatever follows it."""
    sql = settings.workspace("windows") / "hop_reversed.sql"
    sql.write_text(sql.read_text(encoding="utf-8") + "\nSELECT 1;\n", encoding="utf-8")
    assert all(r.passed for r in _step_results(grade_lab(settings, LAB), "hop_reversed"))


def test_the_cli_prints_the_one_line_reason(settings, tmp_path):
    from typer.testing import CliRunner

    from flinklab.cli.app import app

    (settings.workspace("windows") / "cumulate.sql").unlink()
    result = CliRunner().invoke(app, ["check", "windows", "--workspace", str(settings.workspace_root),
                                      "--data-dir", str(settings.data_dir)], env={"COLUMNS": "200"})
    assert result.exit_code == 1, result.output
    assert "cumulate.sql does not exist, so cumulate.out is left from SQL that is gone." in result.output


# Outputs of other programs: real Flink's client in a file (the echo glued or absent), PyFlink's print(). They say
# nothing about the SQL that wrote them, so they grade as they are, whatever the SQL file holds now.
@pytest.mark.parametrize("capture", sorted(p.name for p in (DATA / "outputs").glob("*.out")))
def test_outputs_without_our_echo_are_not_judged(capture: str, tmp_path: Path):
    output = (DATA / "outputs" / capture).read_text(encoding="utf-8")
    shutil.copy(DATA / "outputs" / capture, tmp_path / "step.out")
    (tmp_path / "step.sql").write_text("SET 'execution.runtime-mode' = 'batch';\nSELECT 42 AS answer;\n",
                                       encoding="utf-8")
    echoed = echoed_statements(output)
    stale = stale_step(tmp_path, "lab", StepFiles("step", "step.sql", "step.out"))
    if echoed is None:
        assert stale is None
    else:  # an interactive capture that echoes whole statements as ours does: it is compared like ours
        assert stale is not None and "was changed after step.out was written" in stale.message


def test_our_echo_is_read_back_exactly():
    """The statements of a run's output are those of its SQL file, comments included (the client echoes them)."""
    from flinklab.flink.sql_split import split_statements

    for step in LAB.steps:
        output = (DATA / "windows" / "outputs" / "solution" / step.out_file).read_text(encoding="utf-8")
        sql = (LAB.solution_dir / step.sql_file).read_text(encoding="utf-8")
        echoed = echoed_statements(output)
        statements = split_statements(sql)
        assert echoed == statements[:len(echoed or [])], step.id
