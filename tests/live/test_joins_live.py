"""The joins lab end to end on a real cluster, beyond the lab conformance suite (tests/live/test_lab_conformance.py:
the reference passes, each SQL mistake of sql/joins/mistakes/ fails exactly its checks): the number of checks, the
shapes of the outputs, two mistakes made in the workspace rather than in a step's SQL, another seed and scale.

One solution run, then only the mistaken step per case; the workspace is restored from a snapshot after each.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.labtools import assert_fails_exactly, restore, solve_and_snapshot

from flinklab.grading.changelog import final_rows
from flinklab.grading.parse import parse_output
from flinklab.labs.joins import LAB
from flinklab.labs.joins import reference as ref
from flinklab.settings import Settings
from flinklab.usecases.check import grade_lab
from flinklab.usecases.fixtures import write_fixtures
from flinklab.usecases.run import run_lab

pytestmark = pytest.mark.live

OUTPUTS = Path(__file__).parent.parent / "data" / "joins" / "outputs"

PLAN_STALE = "plans: compiled from the current SQL and Flink version"


@dataclass(frozen=True)
class Mistake:
    id: str
    step: str | None  # the step re-run after the change; None: nothing to run; "*": every step
    #: check name -> a text its hint must contain
    fails: dict[str, str]
    apply: Callable[[Path], None] | None = None  # change the workspace directly
    after: Callable[[Path, Path], None] | None = None  # change the workspace after the run (workspace, snapshot)
    #: checks that fail in some runs and pass in others, for a reason outside the query (check name -> a text its
    #: hint must contain when it fails)
    may_fail: dict[str, str] = dataclasses.field(default_factory=dict)


def _touch_ddl(workspace: Path) -> None:
    # The learner changes a table in ddl.sql after compiling the plans and runs the lab again, then puts the old plan
    # files back (or ran plans.sql by hand, where COMPILE PLAN refused to overwrite them): they no longer describe
    # the current tables (an edit that leaves the tables as they were, e.g. a comment, keeps them fresh). Without the
    # run, every step is stale: test_ddl_edited_after_the_run.
    ddl = workspace / "ddl.sql"
    text = ddl.read_text(encoding="utf-8")
    changed = text.replace("'format' = 'csv'", "'format' = 'csv', 'csv.ignore-parse-errors' = 'true'", 1)
    assert changed != text
    ddl.write_text(changed, encoding="utf-8")


def _old_plans_back(workspace: Path, snapshot: Path) -> None:
    for plan in snapshot.glob("*-plan.json"):
        shutil.copy2(plan, workspace / plan.name)


def _report_from_all_rows(workspace: Path) -> None:
    # matched_orders summed over every +I/+U row of the changelog instead of the last row per tier.
    table = parse_output((workspace / "regular.out").read_text(encoding="utf-8")).table
    total = sum(int(row[table.columns.index("orders")]) for op, row in zip(table.ops, table.rows, strict=False)
                if op in ("+I", "+U"))
    report = json.loads((workspace / "report.json").read_text(encoding="utf-8"))
    report["matched_orders"] = total
    (workspace / "report.json").write_text(json.dumps(report), encoding="utf-8")


# The SQL mistakes are the lab's own (sql/joins/mistakes/, run by tests/live/test_lab_conformance.py); these two
# change the workspace instead of a step's SQL.
MISTAKE_CASES = [
    Mistake("stale plan file", "*", {PLAN_STALE: "stale plan"}, apply=_touch_ddl, after=_old_plans_back),
    Mistake("report from intermediate rows", None, {"report: matched_orders": "intermediate rows"},
            apply=_report_from_all_rows),
]


@pytest.fixture(scope="module")
def solved(flink_cluster: Settings, sql_client, tmp_path_factory: pytest.TempPathFactory):
    """The reference solution run once; yields (settings, snapshot dir of the solved workspace)."""
    _, snapshot = solve_and_snapshot(flink_cluster, LAB, sql_client, tmp_path_factory)
    yield flink_cluster, snapshot


def test_solution_passes_every_one_of_at_least_25_checks(solved):
    # that every check passes and report.json has the lab's fields is the conformance suite's; here, how many
    settings, _ = solved
    report = grade_lab(settings, LAB)
    assert report.all_passed and len(report.results) >= 25


def test_solution_outputs_have_the_shapes_the_lab_teaches(solved):
    settings, _ = solved
    ws = settings.workspace("joins")
    tables = {step: parse_output((ws / f"{step}.out").read_text(encoding="utf-8")).table
              for step in ("count", "regular", "interval", "unshipped", "temporal", "latest")}
    assert tables["count"].ops is None  # batch
    assert {"-U", "+U"} <= tables["regular"].ops_seen() and {"-U"} <= tables["latest"].ops_seen()
    for append_only in ("interval", "unshipped", "temporal"):
        assert tables[append_only].ops_seen() == {"+I"}, append_only
    assert len(final_rows(tables["interval"])) == len(tables["interval"].rows)


@pytest.mark.parametrize("mistake", MISTAKE_CASES, ids=[m.id for m in MISTAKE_CASES])
def test_mistake_fails_exactly_its_checks(solved, sql_client, mistake: Mistake):
    settings, snapshot = solved
    workspace = settings.workspace("joins")
    try:
        if mistake.apply:
            mistake.apply(workspace)
        if mistake.step:
            run_lab(settings, LAB, only=None if mistake.step == "*" else mistake.step, client=sql_client)
        if mistake.after:
            mistake.after(workspace, snapshot)
        report = grade_lab(settings, LAB)
        assert_fails_exactly({r.name: r for r in report.failures}, mistake.fails, mistake.may_fail)
    finally:
        restore(workspace, snapshot)


def test_ddl_edited_after_the_run_makes_every_step_stale(solved):
    # A table changed in ddl.sql after the run: every output came from the old tables, so every step's checks fail
    # with the one line naming ddl.sql and the command that runs the step again; nothing else is judged.
    settings, snapshot = solved
    workspace = settings.workspace("joins")
    try:
        _touch_ddl(workspace)
        report = grade_lab(settings, LAB)
        # report.json is written from the outputs by `flinklab run`, not by a step: it holds up
        stepped = [r for r in report.results if r.step and not r.name.startswith("report:")]
        assert stepped and [r.name for r in stepped if r.passed] == []
        for r in stepped:
            assert r.message == f"ddl.sql was changed after {r.step}.out was written: run the step again.", r
            assert f"flinklab run joins --only {r.step}" in r.hint, r.hint
    finally:
        restore(workspace, snapshot)


def test_solution_passes_at_another_seed_and_scale(flink_cluster: Settings, sql_client, tmp_path: Path):
    # The separating cases are planted at every seed and scale (test_joins_fixtures), and Flink agrees with the
    # reference on them: the reference SQL over seed 3 at scale 10 (its own data and workspace dirs, the same
    # cluster) passes every check, and the orders shipped in time and again too late are not listed as unshipped.
    data = tmp_path / "data"
    data.mkdir()
    write_fixtures(LAB, data, seed=3, scale=10)
    settings = dataclasses.replace(flink_cluster, data_dir=data, workspace_root=tmp_path / "ws")
    run = run_lab(settings, LAB, solution=True, client=sql_client)
    assert run.ok, [(s.step.id, s.status, s.error) for s in run.steps]
    report = grade_lab(settings, LAB)
    assert [(r.name, r.message, r.hint) for r in report.failures] == []
    listed = {r["order_id"] for r in final_rows(parse_output(
        (settings.workspace("joins") / "unshipped.out").read_text(encoding="utf-8")).table)}
    in_time_and_late = _shipped_in_time_and_late(ref.load(data))
    assert len(in_time_and_late) == 2 * 10  # two a day
    assert listed and not in_time_and_late & listed


def _shipped_in_time_and_late(data) -> set[str]:
    order_time = {o.order_id: o.order_time for o in data.orders}
    delays: dict[str, set[float]] = {}
    for s in data.shipments:
        delays.setdefault(s.order_id, set()).add((s.ship_time - order_time[s.order_id]).total_seconds())
    return {o for o, ds in delays.items() if any(0 <= d <= 7200 for d in ds) and any(d > 7200 for d in ds)}
