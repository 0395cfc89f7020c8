"""Renderers (rich table, Gradescope JSON, JUnit XML), the grader's refusals, and the lab CLI commands that need
no cluster (check, fixtures generate)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from flinklab.errors import FlinklabError
from flinklab.grading.context import GradingContext
from flinklab.grading.plans import PlanError, load_plan, state_entries
from flinklab.grading.render import render_report, report_json, write_json, write_junit
from flinklab.grading.results import GradeReport, failed, passed
from flinklab.lab_api import FixtureSpec, Lab, Step
from flinklab.usecases.check import grade_lab
from flinklab.usecases.fixtures import write_fixtures


def sample_report() -> GradeReport:
    return GradeReport(
        lab="demo",
        workspace="/tmp/ws",
        results=[
            passed("count: four tables", 2, step="count"),
            failed(
                "interval: rows",
                3,
                "expected 12 rows, found 11: missing 1 row, e.g. (o7, s7, 7200)",
                hint="BETWEEN includes both ends; `<` drops the 7200 s shipment.",
                step="interval",
            ),
            passed("report: fields", 1, step="report"),
        ],
    )


def test_rich_table_shows_failures_with_hint_and_points():
    console = Console(record=True, width=160, force_terminal=False)
    render_report(sample_report(), console)
    text = console.export_text()
    assert "PASS" in text and "FAIL" in text
    assert "missing 1 row, e.g. (o7, s7, 7200)" in text
    assert "hint: BETWEEN includes both ends" in text
    assert "1 of 3 checks failed." in text
    assert "Points 3/6" in text


def test_rich_all_passed_line():
    report = GradeReport(lab="demo", results=[passed("a", 1), passed("b", 2)])
    console = Console(record=True, width=120)
    render_report(report, console)
    text = console.export_text()
    assert "All 2 checks passed." in text and "Points 3/3" in text


def test_gradescope_json(tmp_path: Path):
    path = tmp_path / "out" / "results.json"
    write_json(sample_report(), path)
    data = json.loads(path.read_text())
    assert data["score"] == 3 and data["max_score"] == 6
    assert "Points 3/6" in data["output"]
    assert [t["status"] for t in data["tests"]] == ["passed", "failed", "passed"]
    for test in data["tests"]:
        assert {"name", "status", "score", "max_score", "output"} <= set(test)
    failing = data["tests"][1]
    assert failing["score"] == 0 and failing["max_score"] == 3
    assert "expected 12 rows" in failing["output"] and "hint: BETWEEN" in failing["output"]
    assert report_json(sample_report()) == data


def test_junit_parses_and_counts_failures(tmp_path: Path):
    path = tmp_path / "junit.xml"
    write_junit(sample_report(), path)
    root = ET.parse(path).getroot()
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("tests") == "3" and suite.get("failures") == "1"
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["count: four tables", "interval: rows", "report: fields"]
    assert cases[1].get("classname") == "demo.interval"
    failures = [c.find("failure") for c in cases]
    assert failures[0] is None and failures[2] is None
    assert failures[1] is not None
    assert failures[1].get("message").startswith("expected 12 rows")
    assert "hint: BETWEEN" in failures[1].text


# --- a tiny test-only lab --------------------------------------------------------------------------------------


def tiny_generate(seed: int, scale: int) -> dict[str, list[tuple[str, ...]]]:
    rows = [(f"k{seed}-{i}", str(i * scale), "2024-01-01 10:00:00") for i in range(3 * scale)]
    return {"tiny_a.csv": rows, "tiny_b.csv": [("x, with comma", '"quoted"')]}


def tiny_checks(ctx: GradingContext) -> list:
    text = ctx.read("count.out")
    if text is None:
        return [
            failed("count: output exists", 1, "count.out is missing", hint="run the count step", step="count")
        ]
    return [passed("count: output exists", 1, step="count")]


TINY = Lab(
    name="tiny",
    title="A test-only lab",
    steps=(Step(id="count", title="count", sql_file="count.sql", out_file="count.out", mode="batch"),),
    fixtures=FixtureSpec(files=("tiny_a.csv", "tiny_b.csv"), generate=tiny_generate, default_seed=7),
    report_fields=(),
    build_report=lambda ws: {},
    checks=tiny_checks,
)


def test_write_fixtures_is_deterministic_csv_without_header(tmp_path: Path):
    first = write_fixtures(TINY, tmp_path / "one")
    second = write_fixtures(TINY, tmp_path / "two")
    assert [p.name for p in first] == ["tiny_a.csv", "tiny_b.csv"]
    assert first[0].read_bytes() == second[0].read_bytes()
    data = first[0].read_bytes()
    assert b"\r" not in data and data.endswith(b"\n")
    assert data.splitlines()[0] == b"k7-0,0,2024-01-01 10:00:00"  # default seed 7, no header
    assert (
        first[1].read_text() == '"x, with comma","""quoted"""\n'
    )  # the csv module quotes as CSV readers expect
    scaled = write_fixtures(TINY, tmp_path / "three", seed=1, scale=2)
    assert len(scaled[0].read_text().splitlines()) == 6


def test_grade_refuses_without_workspace_or_data(tmp_settings):
    with pytest.raises(FlinklabError) as err:
        grade_lab(tmp_settings, TINY)
    assert "No workspace" in err.value.message
    tmp_settings.workspace("tiny").mkdir(parents=True)
    with pytest.raises(FlinklabError) as err:
        grade_lab(tmp_settings, TINY)
    assert "tiny_a.csv" in err.value.message and "tiny_b.csv" in err.value.message
    assert "flink-up" in err.value.hint
    write_fixtures(TINY, tmp_settings.data_dir)
    report = grade_lab(tmp_settings, TINY)
    assert not report.all_passed
    assert report.failures[0].message == "count.out does not exist, nor does count.sql: the step is not done yet."
    (tmp_settings.workspace("tiny") / "count.sql").write_text("SELECT COUNT(*) FROM a;\n")
    (tmp_settings.workspace("tiny") / "count.out").write_text("1 row in set\n")
    assert grade_lab(tmp_settings, TINY).all_passed


def test_grade_turns_a_crashing_check_into_one_error(tmp_settings):
    def crash(ctx):
        raise ZeroDivisionError("boom")

    lab = Lab(**{**TINY.__dict__, "checks": crash})
    tmp_settings.workspace("tiny").mkdir(parents=True)
    write_fixtures(TINY, tmp_settings.data_dir)
    with pytest.raises(FlinklabError) as err:
        grade_lab(tmp_settings, lab)
    assert "ZeroDivisionError: boom" in err.value.message


def test_plan_reader(tmp_path: Path):
    plan_path = tmp_path / "regular-plan.json"
    # node shapes as flink-facts.md §1f quotes them from a real compiled plan
    plan_path.write_text(
        json.dumps(
            {
                "flinkVersion": "2.2",
                "nodes": [
                    {"id": 1, "type": "stream-exec-table-source-scan_2"},
                    {
                        "id": 36,
                        "type": "stream-exec-join_1",
                        "state": [
                            {"index": 0, "ttl": "0 ms", "name": "leftState"},
                            {"index": 1, "ttl": "0 ms", "name": "rightState"},
                        ],
                    },
                    {"id": 16, "type": "stream-exec-interval-join_1"},
                ],
                "edges": [],
            }
        )
    )
    plan = load_plan(plan_path)
    assert plan.flink_version == "2.2"
    joins = plan.nodes_of_type("stream-exec-join_")
    assert len(joins) == 1
    assert [(e.name, e.ttl) for e in state_entries(joins[0])] == [
        ("leftState", "0 ms"),
        ("rightState", "0 ms"),
    ]
    assert state_entries(plan.nodes_of_type("interval-join")[0]) == []
    with pytest.raises(PlanError, match="does not exist"):
        load_plan(tmp_path / "missing-plan.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(PlanError, match="not valid JSON"):
        load_plan(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text('{"report": 1}')
    with pytest.raises(PlanError, match="not a compiled plan"):
        load_plan(tmp_path / "other.json")


# --- CLI commands that need no cluster ------------------------------------------------------------------------


def cli_env(settings) -> dict[str, str]:
    """Environment for a CLI run that touches only the test's temporary dirs (HOME included)."""
    return {
        "HOME": str(settings.state_dir.parent / "home"),
        "FLINKLAB_WORKSPACE": str(settings.workspace_root),
        "FLINKLAB_DATA_DIR": str(settings.data_dir),
        "FLINKLAB_STATE_DIR": str(settings.state_dir),
    }


@pytest.fixture
def tiny_registered(monkeypatch):
    """Make `get_lab("tiny")` find the test-only lab (the registry lists lab packages on disk)."""
    import flinklab.cli.labs as cli_labs

    monkeypatch.setattr(cli_labs, "get_lab", lambda name: TINY if name == "tiny" else pytest.fail(name))
    monkeypatch.setattr(cli_labs, "available_labs", lambda: ["tiny"])


def test_cli_check_exit_codes_and_files(tmp_settings, tmp_path, tiny_registered):
    from flinklab.cli.app import app

    runner = CliRunner()
    env = cli_env(tmp_settings)
    result = runner.invoke(app, ["check", "tiny"], env=env)
    assert result.exit_code == 2, result.output
    assert "No workspace" in result.output and "Traceback" not in result.output

    tmp_settings.workspace("tiny").mkdir(parents=True)
    write_fixtures(TINY, tmp_settings.data_dir)
    out_json, out_xml = tmp_path / "r.json", tmp_path / "r.xml"
    result = runner.invoke(app, ["check", "tiny", "--json", str(out_json), "--junit", str(out_xml)], env=env)
    assert result.exit_code == 1, result.output
    assert "FAIL" in result.output and "hint: Write count.sql, then run it" in result.output
    assert json.loads(out_json.read_text())["tests"][0]["status"] == "failed"
    assert ET.parse(out_xml).getroot().find("testsuite").get("failures") == "1"

    (tmp_settings.workspace("tiny") / "count.sql").write_text("SELECT COUNT(*) FROM a;\n")
    (tmp_settings.workspace("tiny") / "count.out").write_text("ok\n")
    result = runner.invoke(app, ["check", "tiny"], env=env)
    assert result.exit_code == 0, result.output
    assert "All 1 checks passed." in result.output


def test_cli_fixtures_generate(tmp_settings, tmp_path, tiny_registered):
    from flinklab.cli.app import app

    result = CliRunner().invoke(
        app,
        ["fixtures", "generate", "--seed", "3", "--scale", "2", "--out", str(tmp_path / "fx")],
        env=cli_env(tmp_settings),
    )
    assert result.exit_code == 0, result.output
    lines = (tmp_path / "fx" / "tiny_a.csv").read_text().splitlines()
    assert len(lines) == 6 and lines[0].startswith("k3-0,")
    result = CliRunner().invoke(app, ["fixtures", "generate", "--scale", "0"], env=cli_env(tmp_settings))
    assert result.exit_code == 2, result.output
    assert result.output.strip() == "error: --scale must be 1 or more, not 0.", result.output
