"""Capture the joins lab's golden outputs: the reference solution and every mistake in mistakes/, run for real.

    .venv/bin/python tests/data/joins/capture.py [--rest-port 8081]

Needs a running Flink cluster that can read this checkout's fixtures/ (a local cluster reads any local path).
Writes outputs/solution/ (every .out, plan and report.json) and outputs/mistakes/<mistake>/ (the outputs the
mistaken step rewrote). The offline check tests grade these files; recapture when the fixtures or SQL change.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from flinklab.labs.joins import LAB
from flinklab.labs.runner import run_lab
from flinklab.labs.solution import rewrite_paths
from flinklab.settings import PROJECT_ROOT, Settings

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rest-port", type=int, default=8081)
    args = parser.parse_args()
    from flinklab.sqlclient.runner import SqlClient

    with tempfile.TemporaryDirectory(prefix="joins-capture-") as tmp:
        root = Path(tmp)
        data = root / "data"
        data.mkdir()
        for name in LAB.fixtures.files:
            shutil.copy(PROJECT_ROOT / "fixtures" / name, data / name)
        settings = Settings.from_env({"HOME": str(root)}, workspace_root=root / "ws", data_dir=data,
                                     state_dir=root / "state", rest_port=args.rest_port)
        workspace = settings.workspace(LAB.name)
        client = SqlClient(settings)
        try:
            run = run_lab(settings, LAB, solution=True, client=client)
            if not run.ok:
                raise SystemExit(f"the solution failed: {[(s.step.id, s.error) for s in run.steps if not s.ok]}")
            outputs = [s.out_file for s in LAB.steps] + [w for s in LAB.steps for w in s.writes] + ["report.json"]
            _save(workspace, HERE / "outputs" / "solution", outputs)
            snapshot = root / "snapshot"
            shutil.copytree(workspace, snapshot)
            expected = json.loads((HERE / "mistakes" / "expected.json").read_text(encoding="utf-8"))
            for sql_name, case in expected.items():
                if sql_name.startswith("_"):
                    continue
                step = LAB.step(case["step"])
                sql = (HERE / "mistakes" / sql_name).read_text(encoding="utf-8")
                (workspace / step.sql_file).write_text(
                    rewrite_paths(sql, settings.data_dir, settings.workspace_root), encoding="utf-8")
                run_lab(settings, LAB, only=step.id, client=client)
                _save(workspace, HERE / "outputs" / "mistakes" / Path(sql_name).stem, [step.out_file, *step.writes])
                shutil.rmtree(workspace)
                shutil.copytree(snapshot, workspace)
                print("captured", sql_name)
        finally:
            client.close()


def _save(workspace: Path, target: Path, names: list[str]) -> None:
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for name in names:
        shutil.copy(workspace / name, target / name)


if __name__ == "__main__":
    main()
