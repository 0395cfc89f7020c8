"""The windows lab end to end on a real cluster, beyond the lab conformance suite (tests/live/test_lab_conformance.py:
the reference passes, each mistake of sql/windows/mistakes/ fails exactly its checks): the reversed HOP is rejected,
the report's values, insert-only windows, tied data.

One solution run; the workspace is restored from a snapshot after a case that changes it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.labtools import restore, solve_and_snapshot

from flinklab.grading.parse import parse_output
from flinklab.labs.windows import LAB
from flinklab.labs.windows import reference as ref
from flinklab.labs.windows.fixtures import FILE
from flinklab.settings import Settings
from flinklab.usecases.check import grade_lab
from flinklab.usecases.run import run_lab

pytestmark = pytest.mark.live

DATA = Path(__file__).parent.parent / "data" / "windows"
TOP_SHOPS = "top_shops: the 2 shops with the most revenue per 10-minute window"


@pytest.fixture(scope="module")
def solved(flink_cluster: Settings, sql_client, tmp_path_factory: pytest.TempPathFactory):
    """The reference solution run once; yields (settings, snapshot dir of the solved workspace)."""
    run, snapshot = solve_and_snapshot(flink_cluster, LAB, sql_client, tmp_path_factory)
    hop_reversed = next(s for s in run.steps if s.step.id == "hop_reversed")
    assert hop_reversed.status == "ok (rejected)"
    yield flink_cluster, snapshot


def test_solution_report_has_the_reference_values(solved):
    # that every check passes and report.json has the lab's fields is the conformance suite's; here, its values
    settings, _ = solved
    written = json.loads((settings.workspace("windows") / "report.json").read_text(encoding="utf-8"))
    assert written == ref.expected_report(ref.load_orders(settings.data_dir / FILE))
    assert written["orders"] == 119 and written["hop_orders_total"] == 238


def test_solution_windows_are_insert_only(solved):
    settings, _ = solved
    ws = settings.workspace("windows")
    for step in LAB.steps:
        parsed = parse_output((ws / step.out_file).read_text(encoding="utf-8"))
        if step.expect_error:
            assert any("integral multiple of slide" in e for e in parsed.errors)
        else:
            assert parsed.table is not None and parsed.table.ops_seen() == {"+I"}, step.id


def test_report_orders_from_hop_counts(solved):
    settings, snapshot = solved
    workspace = settings.workspace("windows")
    try:
        report = json.loads((workspace / "report.json").read_text(encoding="utf-8"))
        report["orders"] = report["hop_orders_total"]
        (workspace / "report.json").write_text(json.dumps(report), encoding="utf-8")
        failures = {r.name: r for r in grade_lab(settings, LAB).failures}
        assert set(failures) == {"report: orders"}
        assert "HOP counts summed as if they were orders" in failures["report: orders"].hint
    finally:
        restore(workspace, snapshot)


def test_tied_data_is_named(solved, sql_client):
    """A learner's changed CSV with two shops tied in one window: Flink picks one; the check says why it fails."""
    settings, snapshot = solved
    workspace = settings.workspace("windows")
    csv = settings.data_dir / FILE
    original = csv.read_bytes()
    try:
        shutil.copy(DATA / "outputs" / "ties" / FILE, csv)
        run_lab(settings, LAB, only="top_shops", client=sql_client)
        top = parse_output((workspace / "top_shops.out").read_text(encoding="utf-8")).table
        assert top is not None and top.ops_seen() == {"+I"}
        failures = {r.name: r for r in grade_lab(settings, LAB).failures}
        assert TOP_SHOPS in failures
        assert "tie" in failures[TOP_SHOPS].message
        assert "ties broken by chance" in failures[TOP_SHOPS].hint
    finally:
        csv.write_bytes(original)
        restore(workspace, snapshot)
