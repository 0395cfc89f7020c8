"""A mistake in ddl.sql, run for real: every step that fails because of it gets a hint naming ddl.sql and what it
lacks, not "Fix STEP.sql". The windows lab's ddl.sql without its WATERMARK (a learner's real round trip:
`sql-client.sh -i ddl.sql -f tumble_agg.sql > tumble_agg.out 2>&1` in a shell), without its table or with a path
that does not exist; the joins lab's without the WATERMARK of rates or of orders.

FLINKLAB_WRITE_CAPTURE=1 also saves what each case wrote (its ddl.sql and outputs) under tests/data/ddl/LAB/CASE/,
the recorded outputs tests/unit/test_ddl_hints.py grades offline.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.env import settings_env

from flinklab.course.registry import get_lab
from flinklab.settings import Settings
from flinklab.usecases.check import grade_lab
from flinklab.usecases.run import run_lab
from flinklab.usecases.solution import install_solution

CAPTURE = Path(__file__).resolve().parents[1] / "data" / "ddl"
WRITE = os.environ.get("FLINKLAB_WRITE_CAPTURE") == "1"

WINDOWS_WATERMARK = ",\n  WATERMARK FOR order_time AS order_time\n)"
RATES_WATERMARK = ",\n  WATERMARK FOR update_time AS update_time\n)"
ORDERS_WATERMARK = ",\n  WATERMARK FOR order_time AS order_time\n)"

#: (lab, case) -> (the broken ddl.sql from the lab's, the steps to run: None = every step)
CASES = {
    ("windows", "no_watermark"): (lambda ddl: _once(ddl, WINDOWS_WATERMARK, "\n)"), None),
    ("windows", "no_table"): (lambda ddl: _once(ddl, "CREATE TABLE orders (", "CREATE TABLE oders ("),
                              ("tumble", "hop_reversed")),
    ("windows", "bad_path"): (lambda ddl: _once(ddl, "windows_orders.csv", "windows_order.csv"), ("tumble",)),
    ("joins", "rates_no_watermark"): (lambda ddl: _once(ddl, RATES_WATERMARK, "\n)"), None),
    ("joins", "orders_no_watermark"): (lambda ddl: _once(ddl, ORDERS_WATERMARK, "\n)"),
                                       ("interval", "unshipped", "temporal")),
}


def _once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def _broken_workspace(settings: Settings, lab_name: str, case: str) -> tuple[Path, tuple[str, ...] | None]:
    lab = get_lab(lab_name)
    install_solution(settings, lab)
    workspace = settings.workspace(lab_name)
    break_ddl, steps = CASES[(lab_name, case)]
    ddl = workspace / lab.init_file
    ddl.write_text(break_ddl(ddl.read_text(encoding="utf-8")), encoding="utf-8")
    return workspace, steps


def _save(lab_name: str, case: str, workspace: Path, steps: tuple[str, ...] | None) -> None:
    if not WRITE:
        return
    lab = get_lab(lab_name)
    target = CAPTURE / lab_name / case
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    shutil.copy(workspace / lab.init_file, target / lab.init_file)
    for step in lab.steps:
        if (steps is None or step.id in steps) and (workspace / step.out_file).is_file():
            shutil.copy(workspace / step.out_file, target / step.out_file)


@pytest.mark.live
def test_a_shell_run_without_the_watermark_names_ddl_sql(flink_cluster: Settings, tmp_path: Path) -> None:
    settings = flink_cluster.with_overrides(workspace_root=tmp_path / "ws")
    workspace, _ = _broken_workspace(settings, "windows", "no_watermark")
    client = Path(sys.executable).with_name("sql-client.sh")
    subprocess.run(f"'{client}' -i ddl.sql -f tumble_agg.sql > tumble_agg.out 2>&1", shell=True, cwd=workspace,
                   env=settings_env(settings), timeout=600, check=False)
    assert "time attribute" in (workspace / "tumble_agg.out").read_text(encoding="utf-8")
    failures = [r for r in grade_lab(settings, get_lab("windows")).failures if r.step == "tumble_agg"]
    assert failures
    for result in failures:
        assert result.hint.startswith("ddl.sql declares no WATERMARK on orders.order_time"), result.hint
        assert "`WATERMARK FOR order_time AS order_time` to CREATE TABLE orders" in result.hint
        assert "tumble_agg.sql" not in result.hint


#: (lab, case) -> what the hint of every failed check of the steps run starts with
EXPECTED = {
    ("windows", "no_watermark"): "ddl.sql declares no WATERMARK on orders.order_time",
    ("windows", "no_table"): "ddl.sql defines no table orders (it defines oders: a typo?)",
    ("windows", "bad_path"): "ddl.sql points orders at ",
    ("joins", "rates_no_watermark"): "ddl.sql declares no WATERMARK on rates.update_time",
    ("joins", "orders_no_watermark"): "ddl.sql declares no WATERMARK on orders.order_time",
}


@pytest.mark.live
@pytest.mark.parametrize(("lab_name", "case"), list(CASES), ids=[f"{lab}:{case}" for lab, case in CASES])
def test_every_step_failing_on_the_broken_ddl_names_it(lab_name: str, case: str, flink_cluster: Settings,
                                                      sql_client, tmp_path: Path) -> None:
    settings = flink_cluster.with_overrides(workspace_root=tmp_path / "ws")
    lab = get_lab(lab_name)
    workspace, steps = _broken_workspace(settings, lab_name, case)
    for step in steps or [s.id for s in lab.steps]:
        run_lab(settings, lab, only=step, client=sql_client)
    _save(lab_name, case, workspace, steps)
    erred = {s.id for s in lab.steps if (steps is None or s.id in steps)
             and "[ERROR]" in (workspace / s.out_file).read_text(encoding="utf-8")}
    assert erred, "no step failed"
    failures = [r for r in grade_lab(settings, lab).failures if r.step in erred]
    assert failures
    for result in failures:
        assert result.hint.startswith(EXPECTED[(lab_name, case)]), (result.name, result.message, result.hint)
