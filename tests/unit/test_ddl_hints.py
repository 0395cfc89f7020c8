"""A step that fails because of ddl.sql gets a hint naming ddl.sql and what it lacks, graded from real outputs: the
captures of tests/live/test_ddl_hints_live.py (tests/data/ddl/LAB/CASE/: the broken ddl.sql and what each step
wrote with it) over the lab's captured solution. The same error with the lab's own ddl.sql beside it blames the
step, as before; the terminal report says a hint that several steps share once, above the table, and the JSON
report keeps every hint whole.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.captures import write_captured_sql
from rich.console import Console

from flinklab.course.registry import get_lab
from flinklab.grading.context import GradingContext
from flinklab.grading.ddl import tables_of
from flinklab.grading.render import HINT_AT_THE_TOP, render_report, report_json
from flinklab.grading.results import GradeReport

DATA = Path(__file__).resolve().parent.parent / "data"
CAPTURES = DATA / "ddl"


def _workspace(tmp_path: Path, lab_name: str, case: str | None) -> tuple[GradingContext, set[str]]:
    """The lab's captured solution with the case's ddl.sql and outputs over it; the steps whose output erred."""
    lab = get_lab(lab_name)
    workspace, data = tmp_path / "ws" / lab_name, tmp_path / "data"
    shutil.copytree(DATA / lab_name / "outputs" / "solution", workspace)
    data.mkdir()
    for path in lab.data_files():
        shutil.copy(path, data / path.name)
    write_captured_sql(workspace, lab_name, data)
    erred = set()
    if case is not None:
        for path in (CAPTURES / lab_name / case).iterdir():
            shutil.copy(path, workspace / path.name)
        erred = {s.id for s in lab.steps if (CAPTURES / lab_name / case / s.out_file).is_file()
                 and "[ERROR]" in (workspace / s.out_file).read_text(encoding="utf-8")}
        assert erred
    return GradingContext(workspace=workspace, data_dir=data), erred


def _failures(lab_name: str, ctx: GradingContext, steps: set[str]):
    failures = [r for r in get_lab(lab_name).checks(ctx) if not r.passed and r.step in steps]
    assert failures
    return failures


CASES = {
    ("windows", "no_watermark"): (
        "ddl.sql declares no WATERMARK on orders.order_time, so order_time is not a time attribute (windows and "
        "event-time joins need one): add `WATERMARK FOR order_time AS order_time` to CREATE TABLE orders in "
        "ddl.sql, then run every step again (each runs with -i ddl.sql)."),
    ("windows", "no_table"): (
        "ddl.sql defines no table orders (it defines oders: a typo?), so every step that reads it fails: add CREATE "
        "TABLE orders (order_id, shop, amount, order_time) as the lab gives it to ddl.sql, then run every step again "
        "(each runs with -i ddl.sql)."),
    ("joins", "rates_no_watermark"): (
        "ddl.sql declares no WATERMARK on rates.update_time, so update_time is not a time attribute (windows and "
        "event-time joins need one): add `WATERMARK FOR update_time AS update_time` to CREATE TABLE rates in "
        "ddl.sql, then run every step again (each runs with -i ddl.sql)."),
    ("joins", "orders_no_watermark"): (
        "ddl.sql declares no WATERMARK on orders.order_time, so order_time is not a time attribute (windows and "
        "event-time joins need one): add `WATERMARK FOR order_time AS order_time` to CREATE TABLE orders in "
        "ddl.sql, then run every step again (each runs with -i ddl.sql)."),
}


@pytest.mark.parametrize(("lab_name", "case"), list(CASES), ids=[f"{lab}:{case}" for lab, case in CASES])
def test_every_check_of_a_step_failing_on_ddl_sql_names_it(lab_name: str, case: str, tmp_path: Path):
    ctx, erred = _workspace(tmp_path, lab_name, case)
    for result in _failures(lab_name, ctx, erred):
        assert result.hint == CASES[(lab_name, case)], (result.name, result.message)


def test_a_path_that_does_not_exist_names_the_table_and_the_data_file(tmp_path: Path):
    ctx, erred = _workspace(tmp_path, "windows", "bad_path")
    path = tables_of((ctx.workspace / "ddl.sql").read_text(encoding="utf-8"))["orders"].options["path"]
    assert path.endswith("windows_order.csv")
    for result in _failures("windows", ctx, erred):
        assert result.hint == (f"ddl.sql points orders at '{path}', which does not exist: the lab's data is "
                               f"{ctx.data_dir}/windows_orders.csv. Set 'path' = '{ctx.data_dir}/windows_orders.csv' "
                               "in ddl.sql, then run every step again (each runs with -i ddl.sql)."), result.name


def test_the_same_error_with_the_watermark_declared_blames_the_step(tmp_path: Path):
    # the output says the window column is no time attribute, and ddl.sql declares one: the step's SQL lost it
    ctx, erred = _workspace(tmp_path, "windows", "no_watermark")
    lab = get_lab("windows")
    shutil.copy(lab.solution_dir / "ddl.sql", ctx.workspace / "ddl.sql")
    hints = {r.step: r.hint for r in _failures("windows", ctx, erred)}
    assert "ddl.sql" not in hints["tumble_agg"]
    assert hints["tumble_agg"] == "Fix tumble_agg.sql and run the step again."


def test_a_versioned_table_without_a_primary_key_stays_the_steps_mistake(tmp_path: Path):
    # the joins lab's rates has no key by design (temporal.sql builds the versioned view): joining rates itself is
    # the step's mistake, whatever the error says about primary keys
    ctx, _ = _workspace(tmp_path, "joins", None)
    for path in (DATA / "joins" / "outputs" / "mistakes" / "temporal_on_rates").iterdir():
        shutil.copy(path, ctx.workspace / path.name)
    hints = {r.hint for r in _failures("joins", ctx, {"temporal"})}
    assert hints and all(h.startswith("FOR SYSTEM_TIME AS OF on a table without a primary key") for h in hints)


def test_the_terminal_says_a_shared_hint_once_and_the_json_keeps_every_one(tmp_path: Path):
    ctx, erred = _workspace(tmp_path, "windows", "no_watermark")
    results = get_lab("windows").checks(ctx)
    report = GradeReport(lab="windows", results=list(results))
    console = Console(width=1000, record=True, color_system=None)
    render_report(report, console)
    text = console.export_text()
    hint = CASES[("windows", "no_watermark")]
    first = text.splitlines()[0]
    assert first.startswith("Every failing step (") and first.endswith(f"failed for the same reason: hint: {hint}")
    assert all(step in first for step in erred)
    assert text.count("ddl.sql declares no WATERMARK") == 1
    assert text.count(HINT_AT_THE_TOP) == len(erred)  # each step's first failure points up; the rest: same as above
    outputs = [t["output"] for t in report_json(report)["tests"] if t["status"] == "failed" and t.get("tags", [""])[0]
               in erred]
    assert outputs and all(o.endswith(f"hint: {hint}") for o in outputs)
    json.dumps(report_json(report))
