"""What the live lab tests share: solve a lab once and snapshot its workspace, run one step with a mistaken SQL
file, restore the workspace, and assert that grading failed exactly the expected checks with their hints."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

import pytest

from flinklab.grading.checks import CheckResult
from flinklab.labs.base import Lab
from flinklab.labs.runner import LabRun, run_lab
from flinklab.labs.solution import rewrite_paths
from flinklab.settings import Settings


def solve_and_snapshot(settings: Settings, lab: Lab, client, tmp_path_factory: pytest.TempPathFactory
                       ) -> tuple[LabRun, Path]:
    """Run the reference solution (it must succeed and write report.json); copy the solved workspace aside."""
    run = run_lab(settings, lab, solution=True, client=client)
    assert run.ok, [(s.step.id, s.status, s.error) for s in run.steps]
    assert run.report_path is not None, run.report_error
    snapshot = tmp_path_factory.mktemp(f"{lab.name}-solved")
    shutil.copytree(settings.workspace(lab.name), snapshot, dirs_exist_ok=True)  # copy2: mtimes kept
    return run, snapshot


def restore(workspace: Path, snapshot: Path) -> None:
    """Put the solved workspace back (mtimes kept: the plan checks compare them)."""
    shutil.rmtree(workspace)
    shutil.copytree(snapshot, workspace)


def run_with_sql(settings: Settings, lab: Lab, step_id: str, sql: str, client) -> LabRun:
    """Replace the step's SQL file with `sql` (its paths pointed at this cluster's dirs) and run only that step."""
    step = lab.step(step_id)
    (settings.workspace(lab.name) / step.sql_file).write_text(
        rewrite_paths(sql, settings.data_dir, settings.workspace_root), encoding="utf-8")
    return run_lab(settings, lab, only=step_id, client=client)


def assert_fails_exactly(failures: Mapping[str, CheckResult], fails: Mapping[str, str]) -> None:
    """The failed checks are exactly `fails` (name -> a text its hint contains), each saying what it expected."""
    assert set(failures) == set(fails), {n: (r.message, r.hint) for n, r in failures.items()}
    for name, phrase in fails.items():
        assert phrase in failures[name].hint, (name, failures[name].message, failures[name].hint)
        assert "expected" in failures[name].message, failures[name].message
