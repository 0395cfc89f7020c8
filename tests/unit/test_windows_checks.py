"""The windows checks, offline, on outputs captured from the runner on a live cluster (tests/data/windows/capture.py):
the reference solution passes every check; each mistake fails exactly its checks with its hint; missing files,
a hand-made report mistake and tied data are named."""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from flinklab.errors import UsageError
from flinklab.grading.context import GradingContext
from flinklab.grading.outputs import format_number
from flinklab.grading.results import CheckResult
from flinklab.labs.windows import LAB
from flinklab.labs.windows import reference as ref
from flinklab.labs.windows.fixtures import FILE

DATA = Path(__file__).parent.parent / "data" / "windows"
SOLUTION = DATA / "outputs" / "solution"
EXPECTED = json.loads((LAB.mistakes_dir / "expected.json").read_text(encoding="utf-8"))
MISTAKES = sorted(name for name in EXPECTED if not name.startswith("_"))
FIXTURES = LAB.data_dir


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "windows"
    shutil.copytree(SOLUTION, ws)
    return ws


def _grade(workspace: Path, data_dir: Path = FIXTURES) -> dict[str, CheckResult]:
    results = LAB.checks(GradingContext(workspace=workspace, data_dir=data_dir))
    names = [r.name for r in results]
    assert len(names) == len(set(names)), "check names must be unique"
    return {r.name: r for r in results}


def _failures(results: dict[str, CheckResult]) -> dict[str, CheckResult]:
    return {n: r for n, r in results.items() if not r.passed}


def _rebuild_report(workspace: Path) -> None:
    (workspace / "report.json").write_text(json.dumps(LAB.build_report(workspace)), encoding="utf-8")


def test_solution_passes_every_check(workspace: Path):
    results = _grade(workspace)
    assert {n: (r.message, r.hint) for n, r in _failures(results).items()} == {}
    assert len(results) >= 25
    assert {f"report: {f}" for f in LAB.report_fields} <= set(results)
    steps = {r.step for r in results.values()}
    assert {s.id for s in LAB.steps} | {"report"} == steps


def test_report_is_built_from_the_outputs_and_equals_the_reference(workspace: Path):
    built = LAB.build_report(workspace)
    assert list(built) == list(LAB.report_fields)
    orders = ref.load_orders(FIXTURES / FILE)
    assert built == ref.expected_report(orders)
    assert built["orders"] == 119 and built["hop_orders_total"] == 2 * 119
    assert built["cumulate_windows_per_start"] == 6
    assert json.loads((SOLUTION / "report.json").read_text(encoding="utf-8")) == built


def test_solution_outputs_are_insert_only_and_hop_reversed_is_rejected():
    from flinklab.grading.parse import parse_output

    for step in LAB.steps:
        parsed = parse_output((SOLUTION / step.out_file).read_text(encoding="utf-8"))
        if step.expect_error:
            assert any("integral multiple of slide" in e for e in parsed.errors)
            assert parsed.table is None
        else:
            assert parsed.errors == [] and parsed.table is not None and parsed.table.complete, step.id
            assert parsed.table.ops_seen() == {"+I"}, step.id


@pytest.mark.parametrize("mistake", MISTAKES)
def test_mistake_fails_exactly_its_checks(workspace: Path, mistake: str):
    case = EXPECTED[mistake]
    captured = DATA / "outputs" / "mistakes" / Path(mistake).stem
    step = LAB.step(case["step"])
    shutil.copy(captured / step.out_file, workspace / step.out_file)
    shutil.copy(LAB.mistakes_dir / mistake, workspace / f"{step.id}.sql")  # the SQL the learner saved, read too
    _rebuild_report(workspace)  # as `flinklab run` does after every run
    failures = _failures(_grade(workspace))
    assert set(failures) == set(case["fails"]), {n: (r.message, r.hint) for n, r in failures.items()}
    for name, phrase in case["fails"].items():
        assert phrase in failures[name].hint, (name, failures[name].hint)
        assert "expected" in failures[name].message, failures[name].message
        assert failures[name].step in (step.id, "report")


def test_reversed_arguments_show_flinks_rejection_text():
    for stem, text in (("hop_args_reversed", "integral multiple of slide"),
                       ("cumulate_args_reversed", "integral multiple of step")):
        out = next((DATA / "outputs" / "mistakes" / stem).glob("*.out")).read_text(encoding="utf-8")
        assert "[ERROR] Could not execute SQL statement. Reason:" in out and text in out


def test_report_orders_from_hop_counts(workspace: Path):
    report = json.loads((workspace / "report.json").read_text(encoding="utf-8"))
    report["orders"] = report["hop_orders_total"]  # summed the HOP counts as if they were orders
    (workspace / "report.json").write_text(json.dumps(report), encoding="utf-8")
    failures = _failures(_grade(workspace))
    assert set(failures) == {"report: orders"}
    assert "expected orders = 119; found 238" in failures["report: orders"].message
    assert "HOP counts summed as if they were orders" in failures["report: orders"].hint


def test_report_hop_total_equal_to_orders(workspace: Path):
    report = json.loads((workspace / "report.json").read_text(encoding="utf-8"))
    report["hop_orders_total"] = report["orders"]
    (workspace / "report.json").write_text(json.dumps(report), encoding="utf-8")
    failures = _failures(_grade(workspace))
    assert set(failures) == {"report: hop_orders_total"}
    assert "twice the number of orders" in failures["report: hop_orders_total"].hint


def test_report_wrong_types_and_missing_fields(workspace: Path):
    report = json.loads((workspace / "report.json").read_text(encoding="utf-8"))
    report["sessions"] = str(report["sessions"])
    del report["top_orders_rows"]
    (workspace / "report.json").write_text(json.dumps(report), encoding="utf-8")
    failures = _failures(_grade(workspace))
    assert set(failures) == {"report: sessions", "report: top_orders_rows"}
    assert "whole number" in failures["report: sessions"].message
    assert "missing" in failures["report: top_orders_rows"].message
    assert "top_orders.out" in failures["report: top_orders_rows"].hint


def test_missing_report_is_one_failure_worth_every_field(workspace: Path):
    (workspace / "report.json").unlink()
    results = _grade(workspace)
    failures = _failures(results)
    assert set(failures) == {"report: report.json"}, failures
    assert failures["report: report.json"].points == len(LAB.report_fields) == 10
    assert "report.json does not exist" in failures["report: report.json"].message
    assert sum(r.points for r in results.values()) == sum(r.points for r in _grade(SOLUTION).values())


@pytest.mark.parametrize("step_id", [s.id for s in LAB.steps])
def test_missing_output_names_the_file_and_the_step(workspace: Path, step_id: str):
    step = LAB.step(step_id)
    (workspace / step.out_file).unlink()
    _rebuild_report(workspace)
    failures = _failures(_grade(workspace))
    own = {n: r for n, r in failures.items() if r.step == step_id}
    assert own, failures
    for r in own.values():
        assert f"{step.out_file} does not exist" in r.message
        assert step.sql_file in r.hint and step.out_file in r.hint
    assert all(r.step in (step_id, "report") for r in failures.values())


def test_hop_reversed_that_ran_without_error_fails(workspace: Path):
    shutil.copy(workspace / "hop.out", workspace / "hop_reversed.out")
    failures = _failures(_grade(workspace))
    assert set(failures) == {"hop_reversed: Flink rejects a size that is not a multiple of the slide"}
    r = next(iter(failures.values()))
    assert "no [ERROR]" in r.message and "integral multiple of slide" in r.message
    assert "GROUP BY" in r.hint


def test_tied_data_is_detected_and_named(tmp_path: Path, workspace: Path):
    ties = DATA / "outputs" / "ties"
    shutil.copy(ties / "top_shops.out", workspace / "top_shops.out")
    failures = _failures(_grade(workspace, data_dir=ties))
    name = "top_shops: the 2 shops with the most revenue per 10-minute window"
    assert name in failures
    assert "tie" in failures[name].message and FILE in failures[name].message
    assert "D, E at 629.87 in [2024-01-15 09:00:00.000, 2024-01-15 09:10:00.000)" in failures[name].message
    assert "ties broken by chance" in failures[name].hint
    assert "or break ties explicitly (ORDER BY revenue DESC, shop)" in failures[name].hint


@pytest.mark.parametrize("step, out, data", [
    ("top_shops", "top_shops_tiebreak.out", ""),  # revenue tie, ORDER BY revenue DESC, shop
    ("top_orders", "top_orders_tiebreak.out", "amount"),  # amount tie at the Top-3 cut, ORDER BY amount DESC, order_id
])
def test_the_tie_break_the_hint_suggests_passes(workspace: Path, step: str, out: str, data: str):
    ties = DATA / "outputs" / "ties" / data
    assert ref.revenue_ties(ref.load_orders(ties / FILE)) if step == "top_shops" \
        else ref.amount_ties(ref.load_orders(ties / FILE))  # the data really has the tie
    shutil.copy(ties / out, workspace / f"{step}.out")
    results = _grade(workspace, data_dir=ties)
    assert all(r.passed for n, r in results.items() if n.startswith(f"{step}:")), \
        {n: r.message for n, r in results.items() if n.startswith(f"{step}:") and not r.passed}


def test_another_order_among_tied_rows_fails_with_the_passing_tie_break(workspace: Path):
    ties = DATA / "outputs" / "ties" / "amount"
    lines = (ties / "top_orders_tiebreak.out").read_text(encoding="utf-8").splitlines(keepends=True)
    # the other tied order (the same amount, a higher order_id) in rank 3: what ORDER BY amount DESC alone may give
    orders = ref.load_orders(ties / FILE)
    third = ref.top_orders(orders, n=4)[2]
    other = next(o for o in orders if o.amount == third.value and str(o.order_id) != third.key)
    swapped = [line.replace(f"| {int(third.key):>11} |", f"| {other.order_id:>11} |") if f" {third.value} |" in line
               else line for line in lines]
    assert swapped != lines
    (workspace / "top_orders.out").write_text("".join(swapped), encoding="utf-8")
    found = _failures(_grade(workspace, data_dir=ties))["top_orders: the 3 largest orders per 30-minute window"]
    assert "ties broken by order_id" in found.message
    assert found.hint.startswith("Amount ties broken by chance") and "(ORDER BY amount DESC, order_id)" in found.hint


def test_tie_values_keep_the_printed_scale():
    # a tie's revenue (a sum of DECIMAL(10, 2) amounts) is quoted with the scale the table printed, not trimmed
    assert format_number(Decimal("120.00"), keep_zeros=True) == "120.00"
    assert format_number(Decimal("120.00")) == "120"
    assert format_number(None, keep_zeros=True) == "NULL"


def test_batch_mode_table_fails_insert_only(workspace: Path):
    # A batch table prints final rows without the op column: cut the op column off the captured streaming output
    # the way a batch run prints it (same rows, no `| op |`).
    lines = (workspace / "tumble_agg.out").read_text(encoding="utf-8").splitlines()
    cut = []
    for line in lines:
        if line.startswith("+----+"):
            line = "+" + line[len("+----+"):]
        elif line.startswith(("| op |", "| +I |")):
            line = "|" + line[len("| op |"):]
        cut.append(line)
    (workspace / "tumble_agg.out").write_text("\n".join(cut) + "\n", encoding="utf-8")
    failures = _failures(_grade(workspace))
    assert set(failures) == {"tumble_agg: insert-only (+I only)"}
    assert "streaming" in failures["tumble_agg: insert-only (+I only)"].hint


def test_missing_data_is_a_usage_error(tmp_path: Path, workspace: Path):
    with pytest.raises(UsageError, match=FILE):
        LAB.checks(GradingContext(workspace=workspace, data_dir=tmp_path / "nothing"))


TVF_CHECK = "{step}: a window TVF, not a legacy group window function"


def test_reference_sql_passes_the_window_tvf_checks(workspace: Path):
    for step in LAB.steps:
        if (LAB.solution_dir / f"{step.id}.sql").is_file():
            shutil.copy(LAB.solution_dir / f"{step.id}.sql", workspace / f"{step.id}.sql")
    results = _grade(workspace)
    tvf = {n: r for n, r in results.items() if n.endswith("a window TVF, not a legacy group window function")}
    assert len(tvf) == 7 and all(r.passed and r.message == "" for r in tvf.values()), tvf


@pytest.mark.parametrize("sql, legacy", [
    ("SELECT HOP_START(order_time, INTERVAL '5' MINUTE, INTERVAL '10' MINUTE) AS window_start FROM orders\n"
     "GROUP BY hop (order_time, INTERVAL '5' MINUTE, INTERVAL '10' MINUTE)", "HOP_START"),
    ("SELECT * FROM orders GROUP BY SESSION(order_time, INTERVAL '5' MINUTE), shop", "SESSION"),
])
def test_legacy_group_windows_fail_with_the_tvf_named(workspace: Path, sql: str, legacy: str):
    (workspace / "hop.sql").write_text(sql + ";\n", encoding="utf-8")
    found = _failures(_grade(workspace))[TVF_CHECK.format(step="hop")]
    assert f"found the legacy group window function {legacy}(...)" in found.message
    assert "window TVFs replace: window FROM TABLE(" in found.hint


def test_legacy_words_in_comments_and_strings_do_not_fail(workspace: Path):
    sql = ("-- not GROUP BY TUMBLE(order_time, INTERVAL '10' MINUTE)\n/* nor HOP(order_time, ...) */\n"
           "SELECT window_start, 'TUMBLE(order_time)' AS note, `session(x)` FROM TABLE(\n"
           "  TUMBLE(\n    TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES))\n"
           "GROUP BY window_start, window_end;\n")
    (workspace / "tumble_agg.sql").write_text(sql, encoding="utf-8")
    assert _grade(workspace)[TVF_CHECK.format(step="tumble_agg")].passed


@pytest.mark.parametrize(("partition", "named"), [
    ("window_end", "Top-N partitioned by window_end only:"),
    ("t.`window_start`", "Top-N partitioned by window_start only:"),
    ("shop", "Top-N partitioned by shop (no window column):"),
    ("window_start, shop", "Top-N partitioned by window_start, shop:"),
])
def test_a_topn_that_updates_is_told_how_its_sql_partitions(workspace: Path, partition: str, named: str):
    """The insert-only hint of a Top-N names the PARTITION BY the saved SQL has (comments ignored), not a guess."""
    captured = DATA / "outputs" / "mistakes" / "top_shops_partition_start"
    shutil.copy(captured / "top_shops.out", workspace / "top_shops.out")  # a real regular Top-N's changelog
    sql = (LAB.mistakes_dir / "top_shops_partition_start.sql").read_text(encoding="utf-8")
    sql = sql.replace("PARTITION BY window_start ORDER BY", f"PARTITION BY {partition}\n    ORDER BY")
    (workspace / "top_shops.sql").write_text("-- ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY x)\n"
                                             + sql, encoding="utf-8")
    hint = _failures(_grade(workspace))["top_shops: insert-only (+I only)"].hint
    assert hint.startswith(named) and "PARTITION BY window_start, window_end makes it a window Top-N" in hint, hint
    (workspace / "top_shops.sql").unlink()  # graded without its SQL: the hint says what must hold, naming no guess
    hint = _failures(_grade(workspace))["top_shops: insert-only (+I only)"].hint
    assert "partitioned by both window columns" in hint and "only" not in hint, hint


def test_a_report_field_its_output_cannot_give_blames_the_output(workspace: Path):
    """hop.out shows Flink's error (real output), so `flinklab run` left its two fields out of report.json: the hint
    points at the failing step, not at copying or at running a step that did run."""
    shutil.copy(DATA / "outputs" / "mistakes" / "hop_args_reversed" / "hop.out", workspace / "hop.out")
    _rebuild_report(workspace)
    failures = _failures(_grade(workspace))
    for field in ("hop_windows", "hop_orders_total"):
        result = failures[f"report: {field}"]
        assert result.message.endswith("the field is missing."), result.message
        assert result.hint == ("Your hop.out gives no value for it (the failed checks of its step say why): fix that "
                               f"step, run it again, then add {field}.")
    report = json.loads((workspace / "report.json").read_text(encoding="utf-8"))
    del report["orders"]  # forgotten, though tumble.out gives it: read it from there
    (workspace / "report.json").write_text(json.dumps(report), encoding="utf-8")
    assert "Read it from tumble.out" in _failures(_grade(workspace))["report: orders"].hint


# ---- hints that name what the learner wrote (issue 32): the captured mistakes above, and their variants here ----

MISTAKEN = DATA / "outputs" / "mistakes"
TUMBLE_AGG = "tumble_agg: orders and revenue per shop and 10-minute window"
SESSION = "session: sessions per shop (5-minute gap)"


def _with_mistake(workspace: Path, stem: str, step: str, sql: str | None = None) -> None:
    """The captured output of mistake `stem` in the workspace, with `sql` (default: the mistake's own) saved as the
    step's SQL; sql="" saves none (outputs graded without their SQL)."""
    shutil.copy(MISTAKEN / stem / f"{step}.out", workspace / f"{step}.out")
    text = (LAB.mistakes_dir / f"{stem}.sql").read_text(encoding="utf-8") if sql is None else sql
    if text:
        (workspace / f"{step}.sql").write_text(text, encoding="utf-8")


@pytest.mark.parametrize(("grouped", "selected", "named"), [
    ("window_start, shop", "MAX(window_end) AS window_end",
     "GROUP BY window_start, shop has no window_end (MAX(window_end) only hides it)"),
    ("t.window_start, t.shop", "last_value(t.`window_end`) AS window_end",
     "GROUP BY t.window_start, t.shop has no window_end (LAST_VALUE(window_end) only hides it)"),
    ("shop, window_start", "window_start + INTERVAL '10' MINUTE AS window_end",
     "GROUP BY shop, window_start has no window_end:"),
])
def test_grouping_by_window_start_alone_fails_rows_and_kind_naming_it(workspace: Path, grouped: str, selected: str,
                                                                     named: str):
    """Whatever aggregate hides window_end, the rows check fails (2 points) beside the insert-only one: the output
    is a real regular aggregation's changelog (its final rows equal the reference's)."""
    sql = (f"SELECT window_start, {selected}, shop, COUNT(*) AS orders, SUM(amount) AS revenue\n"
           f"FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES)) t\nGROUP BY {grouped};\n")
    _with_mistake(workspace, "tumble_agg_no_window_end", "tumble_agg", sql)
    failures = _failures(_grade(workspace))
    assert set(failures) == {TUMBLE_AGG, "tumble_agg: insert-only (+I only)"}
    rows = failures[TUMBLE_AGG]
    assert rows.points == 2 and "to group by window_start and window_end" in rows.message
    for failure in failures.values():
        assert named in failure.hint and "GROUP BY window_start, window_end" in failure.hint, failure.hint
        assert "instead" not in failure.hint.split("Flink")[0]  # no "aggregate over the window TVF instead"


def test_grouping_without_window_end_and_no_sql_to_read_keeps_the_changelog_hint(workspace: Path):
    _with_mistake(workspace, "tumble_agg_no_window_end", "tumble_agg", sql="")
    failures = _failures(_grade(workspace))
    assert set(failures) == {"tumble_agg: insert-only (+I only)"}  # the rows are right: only its SQL says more
    assert "Updates mean a regular aggregation" in failures["tumble_agg: insert-only (+I only)"].hint


def test_a_time_floor_is_not_taken_for_a_missing_window_end(workspace: Path):
    _with_mistake(workspace, "tumble_agg_time_floor", "tumble_agg")
    failures = _failures(_grade(workspace))
    assert set(failures) == {"tumble_agg: insert-only (+I only)"}
    assert "GROUP BY on a time floor" in failures["tumble_agg: insert-only (+I only)"].hint


def test_the_session_gap_is_read_from_the_sessions_without_the_sql(workspace: Path):
    """A session ends one gap after its last order: the output alone shows the 10 minutes the learner used."""
    _with_mistake(workspace, "session_gap_10", "session", sql="")
    hint = _failures(_grade(workspace))[SESSION].hint
    assert hint.startswith("Sessions that end 10 min after their last order: a gap of 10 min, where the lab's gap is "
                           "5 minutes"), hint


def test_the_session_gap_written_in_seconds_is_named_as_written(workspace: Path):
    sql = (LAB.mistakes_dir / "session_gap_10.sql").read_text(encoding="utf-8").replace(
        "INTERVAL '10' MINUTES", "INTERVAL '600' SECOND")
    _with_mistake(workspace, "session_gap_10", "session", sql)
    hint = _failures(_grade(workspace))[SESSION].hint
    assert "a gap of 10 min (INTERVAL '600' SECOND in session.sql)" in hint, hint


@pytest.mark.parametrize(("ddl_column", "descriptor", "named"), [
    ("proc_time AS PROCTIME()", "proc_time", "DESCRIPTOR(proc_time) is a processing-time attribute"),
    ("`pt` AS PROCTIME()", "o.`pt`", "DESCRIPTOR(pt) is a processing-time attribute"),
])
def test_a_processing_time_attribute_from_ddl_is_named(workspace: Path, ddl_column: str, descriptor: str, named: str):
    """The processing-time column may come from ddl.sql (a computed column) instead of the step's own view; the
    output is the real one of a processing-time window over the lab's file (no window closes: 0 rows)."""
    ddl = (LAB.solution_dir / "ddl.sql").read_text(encoding="utf-8").replace(
        "  order_time TIMESTAMP(3),", f"  order_time TIMESTAMP(3),\n  {ddl_column},")
    (workspace / "ddl.sql").write_text(ddl, encoding="utf-8")
    sql = (LAB.solution_dir / "tumble_agg.sql").read_text(encoding="utf-8").replace(
        "TABLE orders, DESCRIPTOR(order_time)", f"TABLE orders o, DESCRIPTOR({descriptor})")
    _with_mistake(workspace, "tumble_agg_proctime", "tumble_agg", sql)
    hint = _failures(_grade(workspace))[TUMBLE_AGG].hint
    assert hint.startswith(named) and "no window closed before the input ended (no rows)" in hint, hint
    assert hint.endswith("Window on the event time: DESCRIPTOR(order_time)."), hint


def test_an_event_time_descriptor_is_not_named_processing_time(workspace: Path):
    (workspace / "ddl.sql").write_text((LAB.solution_dir / "ddl.sql").read_text(encoding="utf-8").replace(
        "  order_time TIMESTAMP(3),", "  order_time TIMESTAMP(3),\n  pt AS PROCTIME(),"), encoding="utf-8")
    _with_mistake(workspace, "tumble_agg_proctime", "tumble_agg", (LAB.solution_dir / "tumble_agg.sql").read_text())
    hint = _failures(_grade(workspace))[TUMBLE_AGG].hint
    assert "processing-time" not in hint and hint.startswith("COUNT(*) AS orders"), hint


@pytest.mark.parametrize(("partition", "named"), [
    ("window_start, window_end, shop", "ROW_NUMBER() partitioned by window_start, window_end, shop: the extra shop"),
    ("t.shop, `window_end`, window_start",
     "ROW_NUMBER() partitioned by shop, window_end, window_start: the extra shop"),
])
def test_an_extra_partition_column_of_a_window_topn_is_named(workspace: Path, partition: str, named: str):
    sql = (LAB.mistakes_dir / "top_orders_partition_shop.sql").read_text(encoding="utf-8").replace(
        "PARTITION BY window_start, window_end, shop", f"PARTITION BY {partition}")
    _with_mistake(workspace, "top_orders_partition_shop", "top_orders", sql)
    hint = _failures(_grade(workspace))["top_orders: the 3 largest orders per 30-minute window"].hint
    assert hint.startswith(named) and "PARTITION BY window_start, window_end." in hint, hint
