"""`flinklab check` on a data dir without the lab's CSVs (a lab installed after `flink-up`) copies them there from
the lab's package, the way `flink-up` does, with one line saying so, then grades."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from helpers.captures import write_captured_sql
from helpers.env import make_settings
from typer.testing import CliRunner

from flinklab.cli.app import app
from flinklab.course.registry import get_lab
from flinklab.usecases.check import provision_for_grading

DATA = Path(__file__).resolve().parent.parent / "data"


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    root, data = tmp_path / "ws", tmp_path / "fresh-data"
    shutil.copytree(DATA / "windows" / "outputs" / "solution", root / "windows")
    write_captured_sql(root / "windows", "windows", data)
    return root, data


def test_check_provisions_a_missing_labs_data_and_grades(tmp_path: Path):
    root, data = _workspace(tmp_path)
    args = ["check", "windows", "--workspace", str(root), "--data-dir", str(data)]
    env = {"COLUMNS": "400", "FLINKLAB_STATE_DIR": str(tmp_path / "state")}
    result = CliRunner().invoke(app, args, env=env)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == (f"Provisioned the data of windows into {data} (windows_orders.csv): it was not there (a "
                        "lab installed after `flink-up`).")
    for source in get_lab("windows").data_files():
        assert (data / source.name).read_bytes() == source.read_bytes()
    again = CliRunner().invoke(app, args, env=env)
    assert again.exit_code == 0 and "Provisioned" not in again.output


def test_a_csv_that_is_there_is_left_as_it_is(tmp_path: Path):
    root, data = _workspace(tmp_path)
    data.mkdir()
    (data / "windows_orders.csv").write_text("1,A,1.00,2024-01-15 09:00:00\n", encoding="utf-8")  # another seed
    settings = replace(make_settings(tmp_path / "s"), workspace_root=root, data_dir=data)
    assert provision_for_grading(settings, get_lab("windows")) == []
    assert (data / "windows_orders.csv").read_text(encoding="utf-8") == "1,A,1.00,2024-01-15 09:00:00\n"


def test_nothing_is_provisioned_without_a_workspace(tmp_path: Path):
    settings = replace(make_settings(tmp_path), data_dir=tmp_path / "fresh-data")
    assert provision_for_grading(settings, get_lab("windows")) == []
    assert not (tmp_path / "fresh-data").exists()
