"""A run's record (flinklab.grading.run_record) and what `flinklab check` makes of it: ddl.sql changed after a step's
output was written fails that step in one line, only while the record still describes that very output; no record,
or an output written since by something else, says nothing. Also the step that is not written yet (neither its SQL
file nor its output): one hint to write it first, shown once per step in the terminal, whole in the JSON.

The workspace is the windows lab's captured solution outputs with the reference SQL that wrote them (as in
test_check_stale.py). Expected digests are computed here from the files' bytes with hashlib, not by the module.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.env import make_settings
from rich.console import Console

from flinklab.course.registry import get_lab
from flinklab.grading.render import render_report, report_json
from flinklab.grading.run_record import read_record, record_path, record_run
from flinklab.usecases.check import grade_lab

DATA = Path(__file__).resolve().parent.parent / "data"
LAB = get_lab("windows")
WATERMARK = "  WATERMARK FOR order_time AS order_time\n)"  # the DDL's line, not its comment's
LATE_WATERMARK = "  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND\n)"


@pytest.fixture
def settings(tmp_path: Path):
    settings = make_settings(tmp_path)
    workspace = settings.workspace(LAB.name)
    shutil.copytree(DATA / "windows" / "outputs" / "solution", workspace)
    for name in LAB.solution_files:
        shutil.copy(LAB.solution_dir / name, workspace / name)
    for path in LAB.data_files():
        shutil.copy(path, settings.data_dir / path.name)
    return settings


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _edit_ddl(workspace: Path, old: str, new: str) -> None:
    ddl = workspace / "ddl.sql"
    text = ddl.read_text(encoding="utf-8")
    assert text.count(old) == 1
    ddl.write_text(text.replace(old, new), encoding="utf-8")


def _failures(settings) -> dict[str, set[tuple[str, str]]]:
    """Per step, the (message, hint) pairs of its failed checks."""
    found: dict[str, set[tuple[str, str]]] = {}
    for r in grade_lab(settings, LAB).failures:
        found.setdefault(r.step, set()).add((r.message, r.hint))
    return found


def test_the_record_holds_the_digests_of_the_files_and_of_the_output(settings):
    ws = settings.workspace("windows")
    path = record_run(ws / "tumble.out", [ws / "ddl.sql"], ws / "tumble.sql")
    assert path == ws / ".flinklab" / "tumble.out.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["version"] == 1
    assert record["output"] == {"sha256": _sha(ws / "tumble.out")}
    assert [(e["path"], e["sha256"]) for e in record["init"]] == [("ddl.sql", _sha(ws / "ddl.sql"))]
    assert (record["script"]["path"], record["script"]["sha256"]) == ("tumble.sql", _sha(ws / "tumble.sql"))
    assert path.stat().st_size < 1024  # tiny
    assert [p.name for p in path.parent.iterdir()] == ["tumble.out.json"]  # no temporary file left


def test_paths_are_relative_to_the_output_folder(tmp_path):
    (tmp_path / "sql").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "sql" / "ddl.sql").write_text("CREATE TABLE t (a INT);\n", encoding="utf-8")
    (tmp_path / "out" / "x.out").write_text("whatever\n", encoding="utf-8")
    path = record_run(tmp_path / "out" / "x.out", [tmp_path / "sql" / "ddl.sql"], None)
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["init"][0]["path"] == "../sql/ddl.sql"
    assert record["script"] is None


def test_changed_ddl_fails_the_step_whose_record_says_it_ran_the_old_one(settings):
    ws = settings.workspace("windows")
    record_run(ws / "tumble.out", [ws / "ddl.sql"], ws / "tumble.sql")
    _edit_ddl(ws, WATERMARK, LATE_WATERMARK)
    failures = _failures(settings)
    assert set(failures) == {"tumble"}  # the other outputs have no record: nothing is known of them
    (message, hint), = failures["tumble"]
    assert message == "ddl.sql was changed after tumble.out was written: run the step again."
    assert hint == ("Run it again: `sql-client.sh -i ddl.sql -f tumble.sql > tumble.out 2>&1` in the workspace "
                    "(or `flinklab run windows --only tumble`).")


def test_ddl_changed_in_comments_or_spacing_only_is_the_same_ddl(settings):
    ws = settings.workspace("windows")
    record_run(ws / "tumble.out", [ws / "ddl.sql"], ws / "tumble.sql")
    _edit_ddl(ws, WATERMARK, "-- my note\n    WATERMARK  FOR order_time\r\n AS order_time /* as before */\n)")
    assert _failures(settings) == {}


def test_an_output_written_after_the_record_silences_it(settings):
    ws = settings.workspace("windows")
    record_run(ws / "tumble.out", [ws / "ddl.sql"], ws / "tumble.sql")
    _edit_ddl(ws, WATERMARK, LATE_WATERMARK)
    with (ws / "tumble.out").open("a", encoding="utf-8") as f:
        f.write("\n")  # another writer (real Flink's client, an editor): the record no longer describes it
    assert "tumble" not in _failures(settings)


def test_no_record_says_nothing(settings):
    _edit_ddl(settings.workspace("windows"), WATERMARK, LATE_WATERMARK)
    assert _failures(settings) == {}


def test_a_record_of_a_run_without_ddl_or_a_broken_record_says_nothing(settings):
    ws = settings.workspace("windows")
    record_run(ws / "tumble.out", [], ws / "tumble.sql")
    record_run(ws / "hop.out", [ws / "ddl.sql"], ws / "hop.sql")
    record_path(ws / "hop.out").write_text('{"version": 1, "output": [', encoding="utf-8")
    _edit_ddl(ws, WATERMARK, LATE_WATERMARK)
    assert _failures(settings) == {}


def test_the_record_of_the_same_ddl_rerun_clears_the_step(settings):
    ws = settings.workspace("windows")
    record_run(ws / "tumble.out", [ws / "ddl.sql"], ws / "tumble.sql")
    _edit_ddl(ws, WATERMARK, LATE_WATERMARK)
    assert set(_failures(settings)) == {"tumble"}
    record_run(ws / "tumble.out", [ws / "ddl.sql"], ws / "tumble.sql")  # the step run again (same output here)
    assert _failures(settings) == {}


def test_recording_where_nothing_can_be_written_is_skipped_without_an_error(settings):
    ws = settings.workspace("windows")
    (ws / ".flinklab").write_text("not a folder", encoding="utf-8")
    assert record_run(ws / "tumble.out", [ws / "ddl.sql"], ws / "tumble.sql") is None
    assert record_run(ws / "gone.out", [ws / "ddl.sql"], ws / "tumble.sql") is None  # no output
    assert record_run(ws / "tumble.out", [ws / "gone.sql"], ws / "tumble.sql") is None  # an -i file vanished
    assert (ws / ".flinklab").read_text(encoding="utf-8") == "not a folder"
    assert read_record(ws / "tumble.out") is None


_CALL = """
import sys
from pathlib import Path
from flinklab.grading.run_record import record_stdout_run
print("Flink SQL> SELECT 1;")
sys.stdout.flush()
print(record_stdout_run([Path(sys.argv[1])], Path(sys.argv[2])), file=sys.stderr)
"""


def _call(tmp_path: Path, **streams) -> subprocess.CompletedProcess:
    (tmp_path / "ddl.sql").write_text("CREATE TABLE t (a INT);\n", encoding="utf-8")
    (tmp_path / "x.sql").write_text("SELECT 1;\n", encoding="utf-8")
    return subprocess.run([sys.executable, "-c", _CALL, "ddl.sql", "x.sql"], cwd=tmp_path, text=True, timeout=60,
                          check=True, **streams)


def test_stdout_redirected_to_a_file_is_recorded_under_the_files_name(tmp_path):
    with (tmp_path / "x.out").open("w") as out:
        done = _call(tmp_path, stdout=out, stderr=subprocess.PIPE)
    assert done.stderr.strip() == str(tmp_path / ".flinklab" / "x.out.json")
    assert (tmp_path / "x.out").read_text() == "Flink SQL> SELECT 1;\n"  # nothing printed but the output
    record = json.loads((tmp_path / ".flinklab" / "x.out.json").read_text(encoding="utf-8"))
    assert record["output"]["sha256"] == _sha(tmp_path / "x.out")
    assert record["init"][0]["path"] == "ddl.sql" and record["script"]["path"] == "x.sql"


def test_stdout_appended_to_a_file_is_recorded_as_the_whole_file(tmp_path):
    (tmp_path / "x.out").write_text("an earlier run\n", encoding="utf-8")
    with (tmp_path / "x.out").open("a") as out:
        _call(tmp_path, stdout=out, stderr=subprocess.PIPE)
    record = json.loads((tmp_path / ".flinklab" / "x.out.json").read_text(encoding="utf-8"))
    assert record["output"]["sha256"] == _sha(tmp_path / "x.out")


def test_stdout_to_a_pipe_or_a_deleted_file_records_nothing(tmp_path):
    done = _call(tmp_path, capture_output=True)
    assert done.stderr.strip() == "None"
    with (tmp_path / "x.out").open("w") as out:
        os.unlink(tmp_path / "x.out")
        done = _call(tmp_path, stdout=out, stderr=subprocess.PIPE)
    assert done.stderr.strip() == "None"
    assert not (tmp_path / ".flinklab").exists()


def test_an_output_away_from_its_init_file_records_nothing(tmp_path):
    """`sql-client.sh -i ddl.sql -f x.sql > /elsewhere/x.out`: not a lab workspace, so no `.flinklab/` dir there."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with (elsewhere / "x.out").open("w") as out:
        done = _call(tmp_path, stdout=out, stderr=subprocess.PIPE)
    assert done.stderr.strip() == "None"
    assert not (elsewhere / ".flinklab").exists() and not (tmp_path / ".flinklab").exists()


def _guide_number(step: str) -> str:
    """The step's number as the lab's guide heads it (`## Step 1: tumble — ...`)."""
    text = (LAB.root / LAB.guide_file).read_text(encoding="utf-8")
    match = re.search(rf"^## Step (\d+): {step} ", text, re.M)
    assert match, step
    return match.group(1)


@pytest.fixture
def empty_settings(settings):
    ws = settings.workspace("windows")
    shutil.rmtree(ws)
    ws.mkdir()
    return settings


def test_a_step_not_written_yet_says_to_write_its_file_first(empty_settings):
    report = grade_lab(empty_settings, LAB)
    for step in ("tumble", "hop_reversed", "top_orders"):
        checks = [r for r in report.results if r.step == step]
        assert checks and not any(r.passed for r in checks)
        assert {r.message for r in checks} == {f"{step}.out does not exist, nor does {step}.sql: the step is not "
                                               "done yet."}
        assert {r.hint for r in checks} == {
            f"Write {step}.sql (the guide's step {_guide_number(step)}), then run it: `sql-client.sh -i ddl.sql -f "
            f"{step}.sql > {step}.out 2>&1` in the workspace (or `flinklab run windows --only {step}`)."}


def test_a_step_with_its_sql_but_no_output_says_to_run_it(empty_settings):
    ws = empty_settings.workspace("windows")
    shutil.copy(LAB.solution_dir / "tumble.sql", ws / "tumble.sql")
    checks = [r for r in grade_lab(empty_settings, LAB).results if r.step == "tumble"]
    assert checks and all(r.hint.startswith("Run the tumble step: ") for r in checks)


def test_the_terminal_says_a_steps_hint_once_and_the_json_keeps_every_reason(empty_settings):
    report = grade_lab(empty_settings, LAB)
    console = Console(file=io.StringIO(), width=400, color_system=None, force_terminal=False)
    render_report(report, console)
    text = console.file.getvalue()
    for step in (s.id for s in LAB.steps):
        assert text.count(f"Write {step}.sql (the guide's step") == 1, step
        assert text.count(f"{step}.out does not exist, nor does") == 1, step
    repeats = sum(1 for r in report.results if r.step != "report") - len(LAB.steps)
    assert repeats > 0 and text.count("(same as above)") == repeats
    tests = report_json(report)["tests"]
    assert len(tests) == len(report.results)
    for entry, result in zip(tests, report.results, strict=True):
        assert entry["status"] == "failed" and entry["output"]
        if result.step != "report":
            assert entry["output"].startswith(f"{result.step}.out does not exist")
            assert f"hint: Write {result.step}.sql" in entry["output"]


def test_a_hint_shared_by_different_messages_of_a_step_is_said_once(empty_settings):
    from flinklab.grading.results import GradeReport, failed, passed

    report = GradeReport("windows", [
        failed("a: one", 1, "first message", "the hint", step="a"),
        failed("a: two", 1, "second message", "the hint", step="a"),
        passed("a: three", 1, step="a"),
        failed("a: four", 1, "second message", "the hint", step="a"),  # after a pass: said whole again
        failed("b: one", 1, "second message", "the hint", step="b"),  # another step: said whole again
    ])
    console = Console(file=io.StringIO(), width=400, color_system=None, force_terminal=False)
    render_report(report, console)
    text = console.file.getvalue()
    assert text.count("hint: the hint") == 3 and text.count("hint: as above") == 1
    assert text.count("second message") == 3 and "(same as above)" not in text


@pytest.mark.parametrize("lab_name", ["dedup", "joins", "windows"])
def test_the_step_numbers_a_hint_names_are_the_guides(lab_name):
    """The hint counts a lab's steps in their order; the installed labs' guides have a `##` section per step in
    that order (`## Step N: id — ...` where they number them, with that N)."""
    lab = get_lab(lab_name)
    text = (lab.root / lab.guide_file).read_text(encoding="utf-8")
    ids = {s.id for s in lab.steps}
    sections = [m.groups() for m in re.finditer(r"^## (?:Step (\d+): )?(\w+)", text, re.M) if m.group(2) in ids]
    assert [step for _, step in sections] == [s.id for s in lab.steps]
    assert all(number in (None, str(i)) for i, (number, _) in enumerate(sections, start=1))
