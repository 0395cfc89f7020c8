"""What the live lab tests share: solve a lab once and snapshot its workspace, run one step with a mistaken SQL
file, restore the workspace, and assert that grading failed exactly the expected checks with their hints."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

import pytest

from flinklab.course.textpaths import rewrite_paths
from flinklab.grading.results import CheckResult
from flinklab.lab_api import Lab
from flinklab.settings import Settings
from flinklab.usecases.run import LabRun, run_lab


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


def assert_fails_exactly(failures: Mapping[str, CheckResult], fails: Mapping[str, str],
                         may_fail: Mapping[str, str] | None = None) -> None:
    """The failed checks are exactly `fails` (name -> a text its hint contains), plus any of `may_fail` (checks
    whose outcome depends on the run's timing, not the query), each saying what it expected."""
    optional = dict(may_fail or {})
    assert set(fails) <= set(failures) <= set(fails) | set(optional), \
        {n: (r.message, r.hint) for n, r in failures.items()}
    for name, phrase in {**fails, **{n: p for n, p in optional.items() if n in failures}}.items():
        assert phrase in failures[name].hint, (name, failures[name].message, failures[name].hint)
        assert "expected" in failures[name].message, failures[name].message


# ---- capturing golden outputs (tests/data/<lab>/capture.py) -------------------------------------------------


def save_outputs(workspace: Path, target: Path, names: list[str]) -> None:
    """Copy `names` from the workspace into a fresh `target` dir."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for name in names:
        shutil.copy(workspace / name, target / name)


def capture_lab(lab: Lab, here: Path, argv: list[str] | None = None, extra=None) -> None:
    """Run the lab's reference solution and every mistake it declares (`lab.mistakes_dir`) on a running cluster,
    saving what each wrote under `here/outputs/` (solution/, mistakes/<name>/). `extra(settings, client, workspace)`
    may capture more before the client closes. The offline check tests grade these files."""
    import argparse
    import json
    import tempfile

    from flinklab.environment.client import SqlClient

    parser = argparse.ArgumentParser(description=f"Capture the {lab.name} lab's golden outputs.")
    parser.add_argument("--rest-port", type=int, default=8081)
    parser.add_argument("--only", action="append", default=[], metavar="MISTAKE",
                        help="capture only this mistake (its SQL file name; repeatable), keeping the other captures")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix=f"{lab.name}-capture-") as tmp:
        root = Path(tmp)
        data = root / "data"
        data.mkdir()
        for path in lab.data_files():
            shutil.copy(path, data / path.name)
        settings = Settings.from_env({"HOME": str(root)}, workspace_root=root / "ws", data_dir=data,
                                     state_dir=root / "state", rest_port=args.rest_port)
        workspace = settings.workspace(lab.name)
        with SqlClient(settings, embedded=True) as client:  # a gateway of its own: no flink-up needed
            run = run_lab(settings, lab, solution=True, client=client)
            if not run.ok:
                raise SystemExit(f"the solution failed: {[(s.step.id, s.error) for s in run.steps if not s.ok]}")
            print(f"solution: {run.wall_seconds:.1f} s wall, jobs {run.job_seconds} s")
            written = [f for s in lab.steps for f in (s.out_file, *s.writes)]
            if not args.only:
                save_outputs(workspace, here / "outputs" / "solution", [*written, lab.report_file])
            snapshot = root / "snapshot"
            shutil.copytree(workspace, snapshot)  # copy2: mtimes kept
            expected = json.loads((lab.mistakes_dir / "expected.json").read_text(encoding="utf-8"))
            for name, case in expected.items():
                if name.startswith("_") or (args.only and name not in args.only):
                    continue
                step = lab.step(case["step"])
                sql = (lab.mistakes_dir / name).read_text(encoding="utf-8")
                run_with_sql(settings, lab, step.id, sql, client)
                # the SQL the learner saved goes with its output: some checks read it (the windows TVF and Top-N ones)
                save_outputs(workspace, here / "outputs" / "mistakes" / Path(name).stem,
                             [step.out_file, *step.writes, step.sql_file])
                restore(workspace, snapshot)
                print("captured", name)
            if extra is not None and not args.only:
                extra(settings, client, workspace)
