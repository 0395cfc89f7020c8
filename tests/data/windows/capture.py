"""Capture the windows lab's golden outputs: the reference solution and every mistake in mistakes/, run for real.

    .venv/bin/python tests/data/windows/capture.py [--rest-port 8081]

Needs a running Flink cluster that can read local paths (a local cluster does). Writes outputs/solution/ (every
.out and report.json), outputs/mistakes/<mistake>/ (the output the mistaken step rewrote) and outputs/ties/ (a copy
of the data with two shops' revenues tied in one window, and top_shops.out run on it). The offline check tests grade
these files; recapture when the fixtures or the SQL change.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from flinklab.labs.fixtures_io import render_csv
from flinklab.labs.runner import run_lab
from flinklab.labs.solution import rewrite_paths
from flinklab.labs.windows import LAB
from flinklab.labs.windows import reference as ref
from flinklab.labs.windows.fixtures import FILE
from flinklab.settings import PROJECT_ROOT, Settings

HERE = Path(__file__).resolve().parent


def tie_revenues(rows: list[list[str]]) -> list[list[str]]:
    """The data with the runner-up shop of the first window holding two or more shops raised to the leader's
    revenue: a tie at the top of that window's Top-N (the lab's data never has one)."""
    orders = ref.parse_rows(rows)
    per_window: dict[tuple[int, int], list[ref.Ranked]] = {}
    for r in ref.top_shops(orders, n=99):
        per_window.setdefault(r.window, []).append(r)
    window, ranked = next((w, r) for w, r in sorted(per_window.items()) if len(r) >= 2)
    first, second = ranked[0], ranked[1]
    target = next(o for o in orders if o.shop == second.key and ref.tumble_windows(o.ts, ref.MINUTE * 10)[0] == window)
    out = [list(r) for r in rows]
    for row in out:
        if row[0] == str(target.order_id):
            row[2] = f"{target.amount + first.value - second.value:.2f}"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rest-port", type=int, default=8081)
    args = parser.parse_args()
    from flinklab.sqlclient.runner import SqlClient

    with tempfile.TemporaryDirectory(prefix="windows-capture-") as tmp:
        root = Path(tmp)
        data = root / "data"
        data.mkdir()
        shutil.copy(PROJECT_ROOT / "fixtures" / FILE, data / FILE)
        settings = Settings.from_env({"HOME": str(root)}, workspace_root=root / "ws", data_dir=data,
                                     state_dir=root / "state", rest_port=args.rest_port)
        workspace = settings.workspace(LAB.name)
        client = SqlClient(settings)
        try:
            run = run_lab(settings, LAB, solution=True, client=client)
            if not run.ok:
                raise SystemExit(f"the solution failed: {[(s.step.id, s.error) for s in run.steps if not s.ok]}")
            print(f"solution: {run.wall_seconds:.1f} s wall, jobs {run.job_seconds} s")
            _save(workspace, HERE / "outputs" / "solution", [s.out_file for s in LAB.steps] + ["report.json"])
            snapshot = root / "snapshot"
            shutil.copytree(workspace, snapshot)
            expected = json.loads((HERE / "mistakes" / "expected.json").read_text(encoding="utf-8"))
            for name, case in expected.items():
                if name.startswith("_"):
                    continue
                sql, step = HERE / "mistakes" / name, LAB.step(case["step"])
                (workspace / step.sql_file).write_text(
                    rewrite_paths(sql.read_text(encoding="utf-8"), settings.data_dir, settings.workspace_root),
                    encoding="utf-8")
                run_lab(settings, LAB, only=step.id, client=client)
                _save(workspace, HERE / "outputs" / "mistakes" / sql.stem, [step.out_file])
                shutil.rmtree(workspace)
                shutil.copytree(snapshot, workspace)
                print("captured", sql.name)
            rows = [line.split(",") for line in (data / FILE).read_text(encoding="utf-8").splitlines() if line]
            (data / FILE).write_text(render_csv([tuple(r) for r in tie_revenues(rows)]), encoding="utf-8")
            run_lab(settings, LAB, only="top_shops", client=client)
            _save(workspace, HERE / "outputs" / "ties", ["top_shops.out"])
            shutil.copy(data / FILE, HERE / "outputs" / "ties" / FILE)
            print("captured ties")
        finally:
            client.close()


def _save(workspace: Path, target: Path, names: list[str]) -> None:
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for name in names:
        shutil.copy(workspace / name, target / name)


if __name__ == "__main__":
    main()
