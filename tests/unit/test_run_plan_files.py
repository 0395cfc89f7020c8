"""`flinklab run` on odd step files: an empty step file, or one of comments only, is not run "ok" but skipped with
one line naming it; a workspace of nothing but such files is one error before any cluster is asked."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.env import make_settings

from flinklab.course.registry import get_lab
from flinklab.errors import UsageError
from flinklab.usecases.run_plan import holds_no_statement, prepare_run

LAB = get_lab("windows")


@pytest.fixture
def settings(tmp_path: Path):
    settings = make_settings(tmp_path)
    workspace = settings.workspace(LAB.name)
    workspace.mkdir(parents=True)
    for name in LAB.solution_files:
        shutil.copy(LAB.solution_dir / name, workspace / name)
    return settings


@pytest.mark.parametrize(("text", "empty"), [
    ("", True), ("\n\n  \n", True), ("-- TODO: the query\n", True), ("/* later */\n-- and this\n;\n", True),
    ("SELECT 1", False), ("-- the query\nSELECT 1;\n", False), ("SELECT '--' AS not_a_comment;", False),
])
def test_holds_no_statement(tmp_path: Path, text: str, empty: bool):
    path = tmp_path / "step.sql"
    path.write_text(text, encoding="utf-8")
    assert holds_no_statement(path) is empty


def test_an_empty_step_file_is_skipped_with_one_line_naming_it(settings):
    (settings.workspace("windows") / "tumble.sql").write_text("", encoding="utf-8")
    (settings.workspace("windows") / "hop.sql").write_text("-- TODO\n", encoding="utf-8")
    plan = prepare_run(settings, LAB)
    assert plan.skip_reason == {
        "tumble": "tumble.sql holds no SQL statement (it is empty or only comments): write the step's query in it",
        "hop": "hop.sql holds no SQL statement (it is empty or only comments): write the step's query in it",
    }
    assert plan.missing == []


def test_nothing_but_empty_files_is_one_error_before_the_cluster(settings):
    for step in LAB.steps:
        (settings.workspace("windows") / step.sql_file).write_text("-- nothing yet\n", encoding="utf-8")
    (settings.workspace("windows") / "tumble.sql").unlink()
    with pytest.raises(UsageError) as err:
        prepare_run(settings, LAB, strict=True)  # no cluster runs here: the files are judged first
    message = err.value.message
    assert message.startswith(f"Nothing to run in {settings.workspace('windows')}: tumble.sql is missing; ")
    assert "hop.sql, hop_reversed.sql, cumulate.sql" in message
    assert message.endswith("hold no SQL statement (empty or only comments).")
    assert "\n" not in message


def test_cli_names_the_empty_file(settings):
    from typer.testing import CliRunner

    from flinklab.cli.app import app

    for step in LAB.steps:
        (settings.workspace("windows") / step.sql_file).write_text("", encoding="utf-8")
    result = CliRunner().invoke(app, ["run", "windows", "--workspace", str(settings.workspace_root),
                                      "--data-dir", str(settings.data_dir)],
                                env={"COLUMNS": "300", "FLINKLAB_STATE_DIR": str(settings.state_dir)})
    assert result.exit_code == 2, result.output
    assert "tumble.sql" in result.output and "hold no SQL statement" in result.output
    assert "Traceback" not in result.output
