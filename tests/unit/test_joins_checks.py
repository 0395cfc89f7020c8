"""The joins checks on real outputs, offline.

The outputs under tests/data/joins/outputs/ were printed by this project's runner on a live cluster (see
tests/data/joins/capture.py): the reference solution, and each mistake in sql/joins/mistakes/. Here they
are graded against the committed fixtures; the live test does the same end to end.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from flinklab.errors import UsageError
from flinklab.grading.context import GradingContext
from flinklab.grading.ddl import tables_of
from flinklab.grading.results import CheckResult
from flinklab.labs.joins import LAB
from flinklab.labs.joins import reference as ref
from flinklab.labs.joins.report import build_report

DATA = Path(__file__).resolve().parent.parent / "data" / "joins"
SOLUTION = DATA / "outputs" / "solution"
EXPECTED = {k: v for k, v in json.loads((LAB.mistakes_dir / "expected.json").read_text()).items()
            if not k.startswith("_")}
PLANS = ("regular-plan.json", "interval-plan.json", "temporal-plan.json")


@pytest.fixture
def ctx(tmp_path: Path) -> GradingContext:
    """A solved workspace: the captured solution outputs, the reference SQL older than the plans."""
    workspace, data = tmp_path / "ws", tmp_path / "data"
    shutil.copytree(SOLUTION, workspace)
    data.mkdir()
    for path in LAB.data_files():
        shutil.copy(path, data / path.name)
    for name in LAB.solution_files:
        shutil.copy(LAB.solution_dir / name, workspace / name)
        os.utime(workspace / name, (1_700_000_000, 1_700_000_000))
    return GradingContext(workspace=workspace, data_dir=data)


def grade(ctx: GradingContext) -> dict[str, CheckResult]:
    results = LAB.checks(ctx)
    names = [r.name for r in results]
    assert len(names) == len(set(names)), "check names must be unique"
    return {r.name: r for r in results}


def failures(ctx: GradingContext) -> dict[str, CheckResult]:
    return {n: r for n, r in grade(ctx).items() if not r.passed}


def rebuild_report(ctx: GradingContext) -> None:
    # What `flinklab run` does after every run.
    (ctx.workspace / "report.json").write_text(json.dumps(build_report(ctx.workspace)), encoding="utf-8")


def test_solution_passes_every_check(ctx):
    results = grade(ctx)
    assert {n: (r.message, r.hint) for n, r in results.items() if not r.passed} == {}
    assert sum(r.points for r in results.values()) >= 30
    assert {r.step for r in results.values()} == {s.id for s in LAB.steps} | {"report"}


def test_report_from_the_solution_outputs_equals_the_reference(ctx):
    built = build_report(ctx.workspace)
    expected = ref.report(ref.load(ctx.data_dir))
    assert list(built) == list(LAB.report_fields)
    for field in LAB.report_fields:
        assert built[field] == pytest.approx(expected[field], abs=1e-6), field
    assert all(isinstance(built[f], int) for f in LAB.report_fields[:-1])


@pytest.mark.parametrize("mistake", sorted(EXPECTED))
def test_captured_mistake_fails_exactly_its_checks(ctx, mistake):
    case = EXPECTED[mistake]
    captured = DATA / "outputs" / "mistakes" / Path(mistake).stem
    for path in captured.iterdir():
        shutil.copy(path, ctx.workspace / path.name)
    # the SQL the learner saved goes with its output: some hints name what it says
    shutil.copy(LAB.mistakes_dir / mistake, ctx.workspace / LAB.step(case["step"]).sql_file)
    rebuild_report(ctx)
    found = failures(ctx)
    assert set(found) == set(case["fails"]), {n: (r.message, r.hint) for n, r in found.items()}
    for name, phrase in case["fails"].items():
        assert phrase in found[name].hint, (name, found[name].hint)
        assert "expected" in found[name].message, found[name].message


def test_every_mistake_file_is_captured_and_expected():
    sql = {p.name for p in LAB.mistakes_dir.glob("*.sql")}
    assert sql == set(EXPECTED)
    assert {p.name for p in (DATA / "outputs" / "mistakes").iterdir()} == {Path(m).stem for m in EXPECTED}
    for name, case in EXPECTED.items():
        assert name.startswith(case["step"] + "_"), name


def test_missing_outputs_name_the_file_and_the_step(ctx):
    (ctx.workspace / "interval.out").unlink()
    found = failures(ctx)
    assert set(found) == {"interval: rows (both ends of 2 h included)",
                          "interval: boundaries (0 s and 7200 s in, 7201 s out)",
                          "interval: insert-only (+I only)"}
    for result in found.values():
        assert "interval.out does not exist" in result.message
        assert "-f interval.sql > interval.out" in result.hint and "--only interval" in result.hint


def test_an_empty_workspace_fails_everything_with_reasons(ctx):
    for path in ctx.workspace.iterdir():
        path.unlink()
    results = grade(ctx)
    assert not any(r.passed for r in results.values())
    assert all(r.message and r.hint for r in results.values())


def test_an_error_output_is_reported_with_its_reason(ctx):
    (ctx.workspace / "temporal.out").write_text(
        "\nFlink SQL> SELECT 1;\n[ERROR] Could not execute SQL statement. Reason:\n"
        "org.apache.flink.table.api.ValidationException: Object 'rates_v' not found\n", encoding="utf-8")
    found = failures(ctx)
    temporal = [r for n, r in found.items() if n.startswith("temporal:")]
    assert len(temporal) == 4
    assert all("shows an error" in r.message and "rates_v" in r.message for r in temporal)


def test_wrong_column_names_are_named(ctx):
    out = ctx.workspace / "regular.out"
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    lines = [line.replace(" orders |", "    cnt |") if line.startswith("| op |") else line for line in lines]
    out.write_text("".join(lines), encoding="utf-8")
    result = failures(ctx)["regular: per-tier orders and amount"]
    assert "regular.out has no orders" in result.message and "tier, orders, amount" in result.hint
    assert "regular: updating result (-U seen)" not in failures(ctx)  # the op column still says so


def test_plan_from_another_flink_version_is_stale(ctx):
    path = ctx.workspace / "temporal-plan.json"
    plan = json.loads(path.read_text(encoding="utf-8"))
    plan["flinkVersion"] = "2.1"
    path.write_text(json.dumps(plan), encoding="utf-8")
    found = failures(ctx)
    assert set(found) == {"plans: compiled from the current SQL and Flink version"}
    assert "flinkVersion 2.1" in found["plans: compiled from the current SQL and Flink version"].message


def test_a_table_changed_in_ddl_makes_the_plans_stale_and_overwrite_error_is_named(ctx):
    ddl = ctx.workspace / "ddl.sql"
    text = ddl.read_text(encoding="utf-8")
    changed = text.replace("joins_orders.csv',\n  'format' = 'csv'", "joins_orders.csv',\n  'format' = 'csv',\n"
                           "  'csv.ignore-parse-errors' = 'true'", 1)
    assert changed != text
    ddl.write_text(changed, encoding="utf-8")
    os.utime(ddl, (1_600_000_000, 1_600_000_000))  # older than the plans: the time must not hide the change
    (ctx.workspace / "plans.out").write_text(
        "[ERROR] Could not execute SQL statement. Reason:\norg.apache.flink.table.api.TableException: Cannot "
        "overwrite the plan file 'file:///x/regular-plan.json'. Either manually remove the file or ...\n",
        encoding="utf-8")
    result = failures(ctx)["plans: compiled from the current SQL and Flink version"]
    assert "regular-plan.json was compiled from other tables than ddl.sql defines now" in result.message
    assert "orders option 'csv.ignore-parse-errors' is unset in the plan, 'true' in ddl.sql" in result.message
    assert "temporal-plan.json" in result.message and "interval-plan.json" in result.message
    assert "Cannot overwrite the plan file" in result.hint and "Delete" in result.hint


def test_a_column_or_table_missing_from_ddl_is_named(ctx):
    ddl = ctx.workspace / "ddl.sql"
    text = ddl.read_text(encoding="utf-8")
    start = text.index("CREATE TABLE users")
    ddl.write_text(text[:start] + text[text.index(";", start) + 1:].replace("  amount DECIMAL(10, 2),\n", "", 1),
                   encoding="utf-8")
    result = failures(ctx)["plans: compiled from the current SQL and Flink version"]
    assert "it scans users, which ddl.sql does not define" in result.message
    assert "orders has columns (order_id, user_id, currency, amount, order_time) in the plan" in result.message


def test_a_byte_identical_ddl_copied_back_keeps_the_plans_fresh(ctx):
    ddl = ctx.workspace / "ddl.sql"
    text = ddl.read_bytes()
    ddl.unlink()
    ddl.write_bytes(text)  # written now: newer than every plan, same tables
    (ctx.workspace / "plans.sql").touch()
    assert os.stat(ddl).st_mtime > os.stat(ctx.workspace / "regular-plan.json").st_mtime
    assert "plans: compiled from the current SQL and Flink version" not in failures(ctx)


def test_ddl_tables_are_read_through_comments_and_quotes():
    tables = tables_of("-- CREATE TABLE ghost (a INT) WITH ('connector' = 'x');\n"
                       "CREATE TEMPORARY TABLE IF NOT EXISTS `db`.`T1` (\n  a DECIMAL(10, 2), -- a, b\n"
                       "  `b` STRING, ts AS PROCTIME(),\n  WATERMARK FOR a AS a, PRIMARY KEY (a) NOT ENFORCED\n"
                       ") WITH ('connector' = 'file;system', 'path' = 'it''s.csv');")
    assert set(tables) == {"t1"}
    assert tables["t1"].columns == ("a", "b", "ts")
    assert dict(tables["t1"].options) == {"connector": "file;system", "path": "it's.csv"}


def test_plans_swapped_between_files(ctx):
    regular, interval = ctx.workspace / "regular-plan.json", ctx.workspace / "interval-plan.json"
    text = regular.read_text(encoding="utf-8")
    regular.write_text(interval.read_text(encoding="utf-8"), encoding="utf-8")
    interval.write_text(text, encoding="utf-8")
    found = failures(ctx)
    assert set(found) == {"plans: regular join keeps leftState and rightState (TTL 0 ms)",
                          "plans: interval join keeps no TTL state"}
    assert "found an interval join over orders, shipments" in found[
        "plans: regular join keeps leftState and rightState (TTL 0 ms)"].message
    assert "holds a regular join" in found["plans: interval join keeps no TTL state"].hint


def test_plan_with_a_state_ttl(ctx):
    path = ctx.workspace / "regular-plan.json"
    plan = json.loads(path.read_text(encoding="utf-8"))
    for node in plan["nodes"]:
        for entry in node.get("state") or []:
            entry["ttl"] = "1 h"
    path.write_text(json.dumps(plan), encoding="utf-8")
    result = failures(ctx)["plans: regular join keeps leftState and rightState (TTL 0 ms)"]
    assert "leftState=1 h" in result.message and "TTL" in result.hint


def test_plan_that_is_not_json(ctx):
    (ctx.workspace / "temporal-plan.json").write_text("{ nope", encoding="utf-8")
    found = failures(ctx)
    assert "not valid JSON" in found["plans: temporal join keeps no TTL state (its deduplicate does)"].message
    assert "not a plan" in found["plans: compiled from the current SQL and Flink version"].message


@pytest.mark.parametrize(
    ("field", "value", "phrase"),
    [
        ("matched_orders", "108", "not a STRING: 108 without the quotes"),
        ("interval_rows", 104.0, "not a DOUBLE: 104 without the decimal point"),
        ("usd_gap_krw", "1.5", "not a STRING: 1.5 without the quotes"),
        ("unshipped_orders", True, "not a BOOLEAN"),
    ],
)
def test_report_types(ctx, field, value, phrase):
    report = json.loads((ctx.workspace / "report.json").read_text(encoding="utf-8"))
    report[field] = value
    (ctx.workspace / "report.json").write_text(json.dumps(report), encoding="utf-8")
    found = failures(ctx)
    assert set(found) == {f"report: {field}"}
    assert phrase in found[f"report: {field}"].hint


def test_report_value_off_and_missing_field(ctx):
    report = json.loads((ctx.workspace / "report.json").read_text(encoding="utf-8"))
    report["usd_gap_krw"] += 5
    del report["temporal_rows"]
    (ctx.workspace / "report.json").write_text(json.dumps(report), encoding="utf-8")
    found = failures(ctx)
    assert set(found) == {"report: usd_gap_krw", "report: temporal_rows"}
    assert "the field is missing" in found["report: temporal_rows"].message
    assert "last +I/+U" in found["report: usd_gap_krw"].hint


def test_report_from_intermediate_rows(ctx):
    from flinklab.grading.parse import parse_output

    table = parse_output((ctx.workspace / "regular.out").read_text(encoding="utf-8")).table
    every_row = sum(int(r[table.columns.index("orders")])
                    for op, r in zip(table.ops, table.rows, strict=False) if op != "-U")
    report = json.loads((ctx.workspace / "report.json").read_text(encoding="utf-8"))
    report["matched_orders"] = every_row
    (ctx.workspace / "report.json").write_text(json.dumps(report), encoding="utf-8")
    found = failures(ctx)
    assert set(found) == {"report: matched_orders"}
    assert "intermediate rows" in found["report: matched_orders"].hint


def test_report_not_json(ctx):
    (ctx.workspace / "report.json").write_text("matched_orders=1", encoding="utf-8")
    found = failures(ctx)
    assert set(found) == {"report: report.json"}  # one failure, not one per field with the same words
    assert "not valid JSON" in found["report: report.json"].message
    assert found["report: report.json"].points == len(LAB.report_fields)


def test_missing_data_is_a_usage_error(ctx, tmp_path):
    empty = tmp_path / "nodata"
    empty.mkdir()
    with pytest.raises(UsageError) as info:
        LAB.checks(GradingContext(workspace=ctx.workspace, data_dir=empty))
    assert "joins_" in info.value.message


def test_empty_set_output_gets_the_where_hint(ctx):
    # The real client prints `Empty set` (no header) for an empty batch result.
    (ctx.workspace / "unshipped.out").write_text("\nFlink SQL> SELECT o.order_id ...;\nEmpty set (0.41 seconds)\n",
                                                 encoding="utf-8")
    result = failures(ctx)["unshipped: orders without a shipment within 2 h"]
    assert "found 0" in result.message and "Time condition in WHERE" in result.hint


def test_a_report_copied_right_from_a_wrong_output_blames_the_output(ctx):
    # unshipped.out wrong (0 rows: the time condition in WHERE), report.json copied from it correctly
    shutil.copy(DATA / "outputs" / "mistakes" / "unshipped_time_in_where" / "unshipped.out",
                ctx.workspace / "unshipped.out")
    report = json.loads((ctx.workspace / "report.json").read_text(encoding="utf-8"))
    (ctx.workspace / "report.json").write_text(json.dumps({**report, "unshipped_orders": 0}), encoding="utf-8")
    hint = failures(ctx)["report: unshipped_orders"].hint
    assert hint.startswith("0 is what your unshipped.out gives") and "the output itself is wrong" in hint
    assert "Copy it from" not in hint


def test_a_report_miscopied_from_a_right_output_says_copy_it(ctx):
    report = json.loads((ctx.workspace / "report.json").read_text(encoding="utf-8"))
    (ctx.workspace / "report.json").write_text(json.dumps({**report, "unshipped_orders": 5}), encoding="utf-8")
    hint = failures(ctx)["report: unshipped_orders"].hint
    assert hint.startswith("Copy it from unshipped.out") and "output itself is wrong" not in hint
