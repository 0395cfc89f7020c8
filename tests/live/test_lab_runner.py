"""Solution install (backups, path rewriting) and the lab runner, with a tiny test-only lab.

The live test runs the tiny lab on the session's real cluster: a failing step, then a batch COUNT over a CSV
written into the cluster's data dir, then a step whose lesson is a rejection.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from flinklab.course.textpaths import rewrite_paths
from flinklab.errors import FlinklabError, UsageError
from flinklab.grading.files import backup_path
from flinklab.grading.parse import parse_output
from flinklab.lab_api import FixtureSpec, Lab, Step
from flinklab.usecases.run import LabRun, RunProgress, run_lab
from flinklab.usecases.run_report import write_report
from flinklab.usecases.solution import install_solution

DDL = """-- the lab texts' default paths; install rewrites them
CREATE TABLE tiny (k STRING, v INT) WITH (
  'connector' = 'filesystem',
  'path' = 'file:///opt/lab/fixtures/data/tiny_runner.csv',
  'format' = 'csv'
);
"""
BROKEN = """SET 'sql-client.execution.result-mode' = 'tableau';
SELECT COUNT(*) AS n FROM no_such_table;
"""
COUNT = """SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'batch';
SELECT COUNT(*) AS n, SUM(v) AS total FROM tiny;
"""
REJECTED = """SET 'sql-client.execution.result-mode' = 'tableau';
SELECT k FROM tiny WHERE;
"""
CSV_ROWS = "a,1\nb,2\nc,3\nd,4\n"


def build_report(workspace: Path) -> dict:
    """Like a lab's report: read from a saved output, refuse when it is not there."""
    path = workspace / "count.out"
    if not path.exists():
        raise FlinklabError("count.out is missing, so the report cannot be built.", "Run the count step.")
    table = parse_output(path.read_text()).table
    if table is None or not table.rows:
        raise FlinklabError("count.out has no result table.")
    return {"rows": int(table.rows[0][0]), "total": int(table.rows[0][1])}


TINY = Lab(
    name="tiny",
    title="A test-only lab",
    steps=(
        Step(id="broken", title="fails", sql_file="broken.sql", out_file="broken.out"),
        Step(
            id="count",
            title="batch count",
            sql_file="count.sql",
            out_file="count.out",
            mode="batch",
            writes=("stale-plan.json",),
        ),
        Step(
            id="rejected",
            title="a lesson in rejection",
            sql_file="rejected.sql",
            out_file="rejected.out",
            expect_error=True,
        ),
    ),
    fixtures=FixtureSpec(files=("tiny_runner.csv",), generate=lambda seed, scale: {}),
    report_fields=("rows", "total"),
    build_report=build_report,
    checks=lambda ctx: [],
)


def make_project(root: Path) -> Path:
    sql = root / "sql"  # the lab's home: sql/ as in a lab package
    sql.mkdir(parents=True)
    for name, text in {
        "ddl.sql": DDL,
        "broken.sql": BROKEN,
        "count.sql": COUNT,
        "rejected.sql": REJECTED,
    }.items():
        (sql / name).write_text(text)
    return root


@pytest.fixture
def tiny_settings(tmp_settings):
    return tmp_settings


@pytest.fixture
def tiny(tmp_path) -> Lab:
    """The tiny lab with its reference SQL in a folder of its own (as a lab package's sql/)."""
    return replace(TINY, home=make_project(tmp_path / "project"))


# --- solution install --------------------------------------------------------------------------------------------


def test_rewrite_paths_only_whole_prefixes():
    sql = (
        "'file:///opt/lab/fixtures/data/a.csv' '/root/flink/joins/p.json' '/root/flinkx/keep' "
        "'/opt/lab/fixtures/database/keep'"
    )
    out = rewrite_paths(sql, Path("/d ata/it's"), Path("/ws"))
    assert "'file:///d ata/it''s/a.csv'" in out  # a quote inside a SQL literal is doubled
    assert "'/ws/joins/p.json'" in out
    assert "/root/flinkx/keep" in out and "/opt/lab/fixtures/database/keep" in out


def test_install_rewrites_paths_and_backs_up_learner_files(tiny_settings, tiny):
    workspace = tiny_settings.workspace("tiny")
    workspace.mkdir(parents=True)
    (workspace / "count.sql").write_text("-- my own attempt\n")
    (workspace / "broken.sql").write_text(BROKEN)  # identical to the reference: left alone
    (workspace / "notes.txt").write_text("mine")

    result = install_solution(tiny_settings, tiny)

    ddl = (workspace / "ddl.sql").read_text()
    assert f"file://{tiny_settings.data_dir}/tiny_runner.csv" in ddl and "/opt/lab" not in ddl
    assert (workspace / "count.sql").read_text() == COUNT
    assert [p.name for p in result.unchanged] == ["broken.sql"]
    assert sorted(p.name for p in result.installed) == ["count.sql", "ddl.sql", "rejected.sql"]
    [(original, backup)] = result.backups
    assert original == workspace / "count.sql"
    assert re.fullmatch(r"count\.sql\.bak-\d{8}-\d{6}", backup.name)
    assert backup.read_text() == "-- my own attempt\n"
    assert (workspace / "notes.txt").read_text() == "mine"

    again = install_solution(tiny_settings, tiny)
    assert again.backups == [] and again.installed == [] and len(again.unchanged) == 4


def test_backup_names_never_collide(tmp_path):
    path = tmp_path / "count.sql"
    first = backup_path(path, now=0)
    first.write_text("x")
    second = backup_path(path, now=0)
    assert second != first and second.name == first.name + "-2"


def test_install_refuses_an_incomplete_reference(tiny_settings, tiny):
    (tiny.solution_dir / "rejected.sql").unlink()
    with pytest.raises(UsageError, match="rejected.sql"):
        install_solution(tiny_settings, tiny)


# --- runner without a cluster ----------------------------------------------------------------------------------


def test_learner_run_without_workspace_is_a_usage_error(tiny_settings, tiny):
    with pytest.raises(UsageError, match="No workspace"):
        run_lab(tiny_settings, tiny)


def test_learner_run_with_nothing_written_skips_every_step_without_a_cluster(tiny_settings, tiny):
    tiny_settings.workspace("tiny").mkdir(parents=True)
    (tiny_settings.workspace("tiny") / "count.sql").write_text(COUNT)  # but no ddl.sql
    run = run_lab(tiny_settings, tiny)  # no cluster runs at tmp_settings' port: no client may be created
    assert [s.ran for s in run.steps] == [False, False, False]
    assert run.missing == ["broken.sql", "ddl.sql", "rejected.sql"]
    assert run.steps[1].error == "needs ddl.sql, which is missing"
    assert not run.ok
    assert run.report_path is None and "count.out is missing" in run.report_error
    assert not (tiny_settings.workspace("tiny") / "report.json").exists()


# --- live ----------------------------------------------------------------------------------------------------------


class Recorder(RunProgress):
    def __init__(self):
        self.events: list[tuple] = []

    def step_started(self, step):
        self.events.append(("start", step.id))

    def job_submitted(self, step, job_id):
        self.events.append(("job", step.id, job_id))

    def statement_finished(self, step, outcome):
        self.events.append(("statement", step.id, outcome.ok))

    def step_finished(self, run):
        self.events.append(("end", run.step.id, run.ok))


@pytest.mark.live
def test_run_lab_on_the_cluster(flink_cluster, sql_client, tmp_path):
    settings = flink_cluster.with_overrides(workspace_root=tmp_path / "ws")
    lab = replace(TINY, home=make_project(tmp_path / "project"))
    (settings.data_dir / "tiny_runner.csv").write_text(CSV_ROWS)
    workspace = settings.workspace("tiny")
    workspace.mkdir(parents=True)
    (workspace / "stale-plan.json").write_text("{}")
    (workspace / "count.out").write_text("an old output\n")
    (workspace / "report.json").write_text('{"rows": 999}\n')  # the learner's own
    recorder = Recorder()

    run: LabRun = run_lab(settings, lab, solution=True, client=sql_client, progress=recorder, parallel=1)

    broken, count, rejected = run.steps
    # the failing step is recorded, with its .out as the client would have written it
    assert broken.ran and not broken.ok and not broken.statements_ok
    assert "no_such_table" in broken.error
    broken_out = parse_output((workspace / "broken.out").read_text())
    assert broken_out.errors and "no_such_table" in broken_out.errors[0]
    # later steps still ran
    assert count.ran and count.ok and count.statements_ok, count.error
    table = parse_output((workspace / "count.out").read_text()).table
    assert table.rows == [["4", "10"]] and not table.streaming and table.complete
    assert not (workspace / "stale-plan.json").exists()  # a step's `writes` are removed first
    assert len(count.job_ids) == 1 and count.seconds > 0
    # a step whose lesson is a rejection passes when Flink rejects it
    assert rejected.ran and rejected.ok and not rejected.statements_ok
    assert run.ok is False  # because of `broken`
    # report written from the saved outputs; the learner's different report kept as a backup
    assert json.loads((workspace / "report.json").read_text()) == {"rows": 4, "total": 10}
    assert run.report_path == workspace / "report.json"
    assert run.report_backup is not None and run.report_backup.read_text() == '{"rows": 999}\n'
    # job durations from the REST API, summed
    assert set(run.job_durations) == set(run.job_ids) and run.job_ids
    assert all(d is not None and d > 0 for d in run.job_durations.values())
    assert run.job_seconds == pytest.approx(sum(run.job_durations.values()))
    assert run.wall_seconds >= sum(s.seconds for s in run.steps)
    # progress saw every step in order; the shared client is still usable (not closed by run_lab)
    assert [e[1] for e in recorder.events if e[0] == "end"] == ["broken", "count", "rejected"]
    assert ("statement", "count", True) in recorder.events
    # its job was told while the statement ran (a streaming step's job is shown while it runs), before it ended
    counted = [e for e in recorder.events if e[1] == "count"]
    assert counted[-3:] == [("job", "count", count.job_ids[0]), ("statement", "count", True), ("end", "count", True)]

    only = run_lab(settings, lab, only="count", client=sql_client)
    assert [s.step.id for s in only.steps] == ["count"] and only.ok
    assert only.report_backup is None  # same report again: nothing to back up


#: Streaming steps with a job each (a bounded CSV, so each ends), for runs of several steps at once.
SLOW = """SET 'sql-client.execution.result-mode' = 'tableau';
SELECT k, v * {n} AS v FROM tiny WHERE v > {n};
"""
TWINS = Lab(
    name="twins",
    title="Independent streaming steps and a batch one",
    steps=(
        *(Step(id=f"s{n}", title=f"rows above {n}", sql_file=f"s{n}.sql", out_file=f"s{n}.out") for n in (0, 1, 2)),
        Step(id="count", title="batch count", sql_file="count.sql", out_file="count.out", mode="batch"),
        Step(id="s3", title="rows above 3", sql_file="s3.sql", out_file="s3.out"),
    ),
    fixtures=FixtureSpec(files=("tiny_runner.csv",), generate=lambda seed, scale: {}),
    report_fields=("rows", "total"),
    build_report=build_report,
    checks=lambda ctx: [],
)


class Timeline(RunProgress):
    def __init__(self):
        self.spans: dict[str, list[float]] = {}

    def step_started(self, step):
        self.spans[step.id] = [time.monotonic()]

    def step_finished(self, run):
        self.spans[run.step.id].append(time.monotonic())


def _without_times(text: str) -> str:
    return re.sub(r"\(\d+\.\d+ seconds\)", "(TIME)", text)


@pytest.mark.live
def test_parallel_run_matches_one_at_a_time(flink_cluster, sql_client, tmp_path):
    """Up to 3 steps at once give the very outputs of one step at a time; the batch step runs alone."""
    project = tmp_path / "project"
    sql = project / "sql"
    sql.mkdir(parents=True)
    (sql / "ddl.sql").write_text(DDL)
    (sql / "count.sql").write_text(COUNT)
    for n in range(4):
        (sql / f"s{n}.sql").write_text(SLOW.format(n=n))
    (flink_cluster.data_dir / "tiny_runner.csv").write_text(CSV_ROWS)
    outputs = {}
    timelines = {}
    for parallel in (1, 3):
        settings = flink_cluster.with_overrides(workspace_root=tmp_path / f"ws{parallel}")
        timelines[parallel] = Timeline()
        run = run_lab(settings, replace(TWINS, home=project), solution=True, client=sql_client,
                      progress=timelines[parallel], parallel=parallel)
        assert run.ok and [s.step.id for s in run.steps] == ["s0", "s1", "s2", "count", "s3"], run.steps
        assert all(len(s.job_ids) == 1 for s in run.steps)
        # the -i line names the workspace's ddl.sql, which differs between the two runs
        outputs[parallel] = {s.step.id: _without_times(s.out_file.read_text()).replace(
            str(settings.workspace_root), "WORKSPACE") for s in run.steps}
    assert outputs[3] == outputs[1]
    rows = re.findall(r"\| \+I \|\s+(\w) \|\s+(\d+) \|", outputs[3]["s2"])
    assert rows == [("c", "6"), ("d", "8")]  # v > 2, times 2

    def overlap(spans, a, b):
        return spans[a][0] < spans[b][1] and spans[b][0] < spans[a][1]

    one, three = timelines[1].spans, timelines[3].spans
    assert not any(overlap(one, a, b) for a in one for b in one if a < b)  # one at a time
    assert overlap(three, "s0", "s1") and overlap(three, "s1", "s2")  # at once
    assert not any(overlap(three, "count", other) for other in three if other != "count")  # batch alone


class BorrowedClient:
    """The session's real client, lent to code that creates its own: PyFlink keeps ONE gateway JVM per process,
    so closing a second SqlClient would stop the session's JVM too. Records that it was created and closed."""

    def __init__(self, client, log: list[str]):
        self._client = client
        self._log = log

    def __getattr__(self, name):
        return getattr(self._client, name)

    def close(self) -> None:
        self._log.append("closed")


@pytest.mark.live
def test_cli_run_on_the_cluster(flink_cluster, sql_client, tmp_path, monkeypatch):
    """`flinklab run tiny --solution`: run_lab creates a client for the run and one per step (the step timeout
    aborts a step's own), closes each, and the exit status is 1."""
    import flinklab.cli.labs as cli_labs
    import flinklab.environment.client as environment_client
    from flinklab.cli.app import app

    log: list[str] = []

    def make_client(settings):
        assert settings.rest_port == flink_cluster.rest_port
        log.append("created")
        return BorrowedClient(sql_client, log)

    monkeypatch.setattr(environment_client, "LabSqlClient", make_client)
    project = make_project(tmp_path / "project")
    (flink_cluster.data_dir / "tiny_runner.csv").write_text(CSV_ROWS)
    monkeypatch.setattr(cli_labs, "get_lab", lambda name: replace(TINY, home=project))
    env = {
        "FLINKLAB_WORKSPACE": str(tmp_path / "ws"),
        "FLINKLAB_DATA_DIR": str(flink_cluster.data_dir),
        "FLINKLAB_STATE_DIR": str(flink_cluster.state_dir),
        "FLINKLAB_REST_PORT": str(flink_cluster.rest_port),
        "FLINKLAB_GATEWAY_PORT": str(flink_cluster.gateway_port),
    }
    result = CliRunner().invoke(app, ["run", "tiny", "--solution"], env=env)
    assert result.exit_code == 1, result.output
    assert log[0] == "created" and log[-1] == "closed"  # the run's client, around the three steps' own
    assert log.count("created") == log.count("closed") == 4
    text = result.output
    assert "broken" in text and "failed" in text
    assert f"count: {flink_cluster.rest_url}/#/job/completed/" in text, text
    assert "Wall time" in text and "Flink job(s) ran for" in text
    assert "flinklab check tiny" in text
    assert (tmp_path / "ws" / "tiny" / "report.json").exists()

    result = CliRunner().invoke(app, ["run", "tiny", "--only", "count"], env=env)
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(app, ["run", "tiny", "--only", "nope"], env=env)
    assert result.exit_code == 2 and "no step 'nope'" in result.output


def _report_case(tmp_path: Path, existing: str) -> tuple[LabRun, Path]:
    workspace = tmp_path / "tiny"
    workspace.mkdir()
    (workspace / "count.out").write_text("+-----+-----+\n| n   | s   |\n+-----+-----+\n| 4   | 10  |\n+-----+-----+\n"
                                         "1 row in set\n")
    (workspace / "report.json").write_text(existing, encoding="utf-8")
    run = LabRun(lab=TINY, workspace=workspace, solution=False)
    write_report(TINY, workspace, run)
    return run, workspace


def test_a_report_differing_only_in_layout_is_left_alone(tmp_path: Path):
    mine = '{"total":10,   "rows": 4}'  # no trailing newline, other key order and spacing
    run, workspace = _report_case(tmp_path, mine)
    assert run.report_backup is None and run.report_path == workspace / "report.json"
    assert (workspace / "report.json").read_text(encoding="utf-8") == mine  # not rewritten either
    assert list(workspace.glob("report.json.*")) == [] and sorted(p.name for p in workspace.iterdir()) == \
        ["count.out", "report.json"]


def test_a_report_with_other_values_or_types_is_backed_up(tmp_path: Path):
    run, workspace = _report_case(tmp_path, '{"rows": 4.0, "total": 10}\n')  # 4.0 is not the integer 4
    assert run.report_backup is not None and run.report_backup.read_text() == '{"rows": 4.0, "total": 10}\n'
    assert json.loads((workspace / "report.json").read_text()) == {"rows": 4, "total": 10}


# --- report.json after a partial run (`--only`), on the windows lab's captured outputs ----------------------------

WINDOWS_DATA = Path(__file__).parent.parent / "data" / "windows" / "outputs"


def _windows_workspace(tmp_path: Path) -> Path:
    import shutil

    workspace = tmp_path / "windows"
    shutil.copytree(WINDOWS_DATA / "solution", workspace)  # report.json as `flinklab run` wrote it
    return workspace


def _rerun_session(workspace: Path, session_out: Path, partial: bool = True) -> LabRun:
    """What `flinklab run windows --only session` does around the step: read the outputs' report, the step
    rewrites session.out, then report.json is written."""
    import shutil

    from flinklab.labs.windows import LAB as WINDOWS
    from flinklab.usecases.run_report import outputs_report

    before = outputs_report(WINDOWS, workspace)
    shutil.copy(session_out, workspace / "session.out")
    run = LabRun(lab=WINDOWS, workspace=workspace, solution=False)
    write_report(WINDOWS, workspace, run, before, partial=partial)
    return run


def _report(workspace: Path) -> dict:
    return json.loads((workspace / "report.json").read_text(encoding="utf-8"))


def test_only_a_step_rewrites_only_its_fields_and_backs_up_nothing_of_flinklabs(tmp_path: Path):
    workspace = _windows_workspace(tmp_path)
    mine = {**_report(workspace), "orders": 120, "note": "my own key"}  # a value and a key the outputs never gave
    (workspace / "report.json").write_text(json.dumps(mine), encoding="utf-8")
    wrong, right = WINDOWS_DATA / "mistakes" / "session_no_partition" / "session.out", WINDOWS_DATA / "solution" / \
        "session.out"
    run = _rerun_session(workspace, wrong)
    assert _report(workspace) == {**mine, "sessions": 5, "longest_session_s": 7194}  # only session's two fields
    assert run.report_backup is None  # the values replaced were the outputs' own
    run = _rerun_session(workspace, right)  # fixed, run again
    assert _report(workspace) == mine and run.report_backup is None
    run = _rerun_session(workspace, right)  # the same again: the file is not even rewritten
    assert run.report_backup is None and _report(workspace) == mine
    assert sorted(p.name for p in workspace.glob("report.json*")) == ["report.json"]  # no .bak piled up
    (workspace / "report.json").write_text(json.dumps({**mine, "sessions": 99}), encoding="utf-8")
    run = _rerun_session(workspace, wrong)  # a value you wrote for the step that ran is replaced: kept aside
    assert _report(workspace)["sessions"] == 5 and _report(workspace)["orders"] == 120
    assert run.report_backup is not None and json.loads(run.report_backup.read_text())["sessions"] == 99


def test_a_full_run_writes_every_field_and_backs_up_only_what_you_wrote(tmp_path: Path):
    workspace = _windows_workspace(tmp_path)
    wrong = WINDOWS_DATA / "mistakes" / "session_no_partition" / "session.out"
    run = _rerun_session(workspace, wrong, partial=False)  # flinklab's own report, outputs changed: no backup
    assert _report(workspace)["sessions"] == 5 and run.report_backup is None
    (workspace / "report.json").write_text(json.dumps({**_report(workspace), "orders": 120}), encoding="utf-8")
    run = _rerun_session(workspace, WINDOWS_DATA / "solution" / "session.out", partial=False)
    assert _report(workspace)["orders"] == 119 and _report(workspace)["sessions"] == 24
    assert run.report_backup is not None and json.loads(run.report_backup.read_text())["orders"] == 120
