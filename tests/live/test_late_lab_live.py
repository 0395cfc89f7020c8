"""A lab installed after `flink-up` has no data in the cluster's data dir yet: `flinklab run` and `flinklab check`
copy it there (the same code `flink-up` uses) with one line saying so, and no Java FileNotFoundException reaches
the learner. An empty step file is not run "ok": it is named on one line and the run fails.

The dedup test lab stands for the late lab; the data dir is a fresh one of this test (the session cluster's
TaskManagers read any local path, and the shared data dir of the other live tests stays as it is)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers.env import settings_env

from flinklab.course.registry import get_lab

pytestmark = pytest.mark.live


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from flinklab.cli import main; main()", *args], env=env,
                          capture_output=True, text=True, timeout=300)


def test_run_and_check_provision_a_late_labs_data(flink_cluster, tmp_path: Path):
    lab = get_lab("dedup")
    data = tmp_path / "data"
    data.mkdir()
    env = {**settings_env(flink_cluster), "FLINKLAB_WORKSPACE": str(tmp_path / "ws"),
           "FLINKLAB_DATA_DIR": str(data), "COLUMNS": "200"}

    run = _cli(env, "run", "dedup", "--solution")
    said = run.stdout + run.stderr
    assert run.returncode == 0, said
    assert "FileNotFoundException" not in said
    line = f"Provisioned the data of dedup into {data} (dedup_events.csv): it was not there"
    assert [ln for ln in said.splitlines() if ln.startswith("Provisioned")] == [
        line + " (a lab installed after `flink-up`)."]
    for source in lab.data_files():
        assert (data / source.name).read_bytes() == source.read_bytes()

    # grading from a data dir the lab's CSVs are missing from: copied again, then every check passes
    (data / "dedup_events.csv").unlink()
    checked = _cli(env, "check", "dedup")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert line in checked.stdout and "All 4 checks passed." in checked.stdout
    again = _cli(env, "check", "dedup")  # nothing missing now: nothing said
    assert again.returncode == 0 and "Provisioned" not in again.stdout


def test_an_empty_step_file_fails_the_run_naming_it(flink_cluster, tmp_path: Path):
    env = {**settings_env(flink_cluster), "FLINKLAB_WORKSPACE": str(tmp_path / "ws"), "COLUMNS": "200"}
    assert _cli(env, "run", "dedup", "--solution").returncode == 0
    workspace = tmp_path / "ws" / "dedup"
    (workspace / "last.sql").write_text("-- TODO: keep the latest action per user\n", encoding="utf-8")

    run = _cli(env, "run", "dedup")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "last: last.sql holds no SQL statement (it is empty or only comments): write the step's query in it" \
        in run.stdout
    assert "All steps ran" not in run.stdout and "Some steps failed or were skipped." in run.stdout

    checked = _cli(env, "check", "dedup")  # last.out is from the reference run: not the work of last.sql
    assert checked.returncode == 1
    assert "last.sql holds no SQL statement (it is empty or only comments), so last.out is not its output." \
        in checked.stdout
