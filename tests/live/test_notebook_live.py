"""The notebook door on a real cluster, through a real Jupyter kernel (nbclient / jupyter_client):

- the committed lab notebooks, their cells filled with the reference solution, pass `flinklab check`; with one
  typical mistake the check fails exactly as after `sql-client.sh -i ddl.sql -f STEP.sql > STEP.out 2>&1`, whose
  STEP.out the notebook's equals (but for job ids and times);
- `%%flink` results (update, append, single, the plain table) equal values computed from the CSVs in plain Python;
- interrupt cancels the query and its Flink job and ends with Flink's `Query terminated` line; Flink errors are
  one `[ERROR]` block; a gateway that is down, refuses the token or has no such host is one line; no traceback.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import time
from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path

import nbformat
import pytest
from helpers.env import free_port
from helpers.labtools import assert_fails_exactly
from helpers.notebooks import (
    NOTEBOOKS,
    code_notebook,
    jupyter_dirs,
    kernel_env,
    outputs,
    run_notebook,
    text,
    tracebacks,
)
from jupyter_client.manager import start_new_kernel

from flinklab.access import read_token
from flinklab.cluster.base import resolve_rest_url
from flinklab.course.registry import get_lab
from flinklab.course.textpaths import rewrite_paths
from flinklab.flink.rest import FlinkRest
from flinklab.settings import Settings
from flinklab.usecases.check import grade_lab

pytestmark = pytest.mark.live

SAVE = re.compile(r"^%%flink --lab (\w+) --save (\w+)\n")


@pytest.fixture(autouse=True)
def _jupyter_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Jupyter's and IPython's dirs for this process too (connection files): never the user's."""
    for name, value in jupyter_dirs(tmp_path).items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def settings(flink_cluster: Settings, tmp_path: Path) -> Settings:
    """The session's cluster, with a workspace of this test's own."""
    return flink_cluster.with_overrides(workspace_root=tmp_path / "workspace")


def reference_sql(settings: Settings, lab_name: str, file: str) -> str:
    lab = get_lab(lab_name)
    return rewrite_paths((lab.solution_dir / file).read_text(encoding="utf-8"), settings.data_dir,
                         settings.workspace_root)


def filled_lab_notebook(settings: Settings, lab_name: str, replace: dict[str, str] | None = None
                        ) -> nbformat.NotebookNode:
    """The committed notebook of the lab with the reference SQL (or `replace[step]`) under each `--save` line."""
    lab = get_lab(lab_name)
    nb = nbformat.read(NOTEBOOKS / f"{lab_name}.ipynb", as_version=4)
    files = {"ddl": lab.init_file, **{s.id: s.sql_file for s in lab.steps}}
    saved = []
    for cell in nb.cells:
        found = SAVE.match(cell.source) if cell.cell_type == "code" else None
        if found:
            assert found.group(1) == lab_name
            step = found.group(2)
            sql = (replace or {}).get(step) or reference_sql(settings, lab_name, files[step])
            cell.source = found.group(0) + sql
            saved.append(step)
    assert saved == list(files), saved  # one cell per step, in the lab's order, ddl first
    return nb


@pytest.mark.parametrize("lab_name", ["joins", "windows"])
def test_the_lab_notebook_with_the_reference_passes_check(settings: Settings, lab_name: str) -> None:
    nb = run_notebook(filled_lab_notebook(settings, lab_name), settings)
    assert tracebacks(nb) == []
    check_cell = nb.cells[-1]
    assert check_cell.source == f"!flinklab check {lab_name}"
    assert re.search(r"All \d+ checks passed\.", text(check_cell, "stdout")), text(check_cell, "stdout")
    report = grade_lab(settings, get_lab(lab_name))
    assert report.all_passed, [(r.name, r.message) for r in report.results if not r.passed]
    done = subprocess.run(["flinklab", "check", lab_name], env=kernel_env(settings), capture_output=True,
                          text=True, cwd=settings.workspace_root)
    assert done.returncode == 0, done.stdout + done.stderr


def _normal(out: str, workspace: Path) -> list[str]:
    """An output's lines but for what differs from run to run: job ids, time costs, the init file's path (the
    notebook's run names it absolutely, a terminal in the workspace as typed), and (a streaming result's rows
    arrive in any order across parallel tasks) line order."""
    out = out.replace(f"{workspace}/", "")
    out = re.sub(r"\b[0-9a-f]{32}\b", "<job id>", out)
    out = re.sub(r"\(\d+\.\d\d seconds\)", "(<t> seconds)", out)
    return sorted(out.splitlines())


@pytest.mark.parametrize("lab_name, mistake", [("joins", "interval_less_than.sql"), ("windows", "hop_size_15.sql")])
def test_a_typical_mistake_fails_with_the_hint_a_terminal_gets(settings: Settings, lab_name: str,
                                                               mistake: str) -> None:
    lab = get_lab(lab_name)
    case = next(m for m in lab.mistakes() if m.sql_file == mistake)  # the lab's declared mistakes
    step = lab.step(case.step)
    wrong = rewrite_paths((lab.mistakes_dir / mistake).read_text(encoding="utf-8"), settings.data_dir,
                          settings.workspace_root)
    nb = run_notebook(filled_lab_notebook(settings, lab_name, {step.id: wrong}), settings)
    assert tracebacks(nb) == []
    workspace = settings.workspace(lab_name)
    assert (workspace / step.sql_file).read_text(encoding="utf-8") == wrong
    from_notebook = {r.name: (r.message, r.hint) for r in grade_lab(settings, lab).results if not r.passed}
    required = {name: phrase for name, phrase in case.fails.items() if name not in case.may_pass}
    assert_fails_exactly({r.name: r for r in grade_lab(settings, lab).results if not r.passed}, required,
                         {name: case.fails[name] for name in case.may_pass})
    notebook_out = (workspace / step.out_file).read_text(encoding="utf-8")

    # the same step from a terminal, as the guide says to run it
    with (workspace / step.out_file).open("w", encoding="utf-8") as out:
        subprocess.run(["sql-client.sh", "-i", lab.init_file, "-f", step.sql_file], cwd=workspace, stdout=out,
                       stderr=subprocess.STDOUT, env=kernel_env(settings))
    terminal_out = (workspace / step.out_file).read_text(encoding="utf-8")
    assert _normal(notebook_out, workspace) == _normal(terminal_out, workspace)
    from_terminal = {r.name: (r.message, r.hint) for r in grade_lab(settings, lab).results if not r.passed}
    assert from_notebook == from_terminal


# ---- results against the CSVs ---------------------------------------------------------------------------------


def _csv(settings: Settings, name: str) -> list[list[str]]:
    with (settings.data_dir / name).open(encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


def test_results_equal_values_computed_from_the_csvs(settings: Settings, tmp_path: Path) -> None:
    ddl = tmp_path / "ddl.sql"
    ddl.write_text(reference_sql(settings, "joins", "ddl.sql"), encoding="utf-8")
    tiers = "SELECT u.tier, COUNT(*) AS orders, SUM(o.amount) AS amount FROM orders o JOIN users u " \
            "ON o.user_id = u.user_id GROUP BY u.tier"
    dump = "import json; print(json.dumps(sorted([[str(v) for v in row] for row in {}.values.tolist()])))"
    nb = run_notebook(code_notebook([
        "%load_ext flinklab.notebook",
        "%flink_connect",
        f"%%flink --init {ddl} --as batch\nSET 'execution.runtime-mode' = 'batch';\n{tiers};",
        dump.format("batch"),
        f"%%flink --display update --refresh-ms 100 --as live\nSET 'execution.runtime-mode' = 'streaming';\n{tiers}",
        dump.format("live"),
        "%%flink --display single --as n\nSELECT COUNT(*) AS n FROM orders",
        dump.format("n"),
        "%%flink --display append --as usd\nSELECT order_id FROM orders WHERE currency = 'USD'",
        dump.format("usd"),
        "%%flink --max-rows 2\nSET 'execution.runtime-mode' = 'batch';\nSELECT user_id FROM users",
    ]), settings)
    assert tracebacks(nb) == []
    users = {row[0]: row[1] for row in _csv(settings, "joins_users.csv")}
    orders = _csv(settings, "joins_orders.csv")
    count: Counter[str] = Counter()
    amount: dict[str, Decimal] = defaultdict(Decimal)
    for _order_id, user_id, _currency, value, _time in orders:
        if user_id in users:
            count[users[user_id]] += 1
            amount[users[user_id]] += Decimal(value)
    expected = sorted([tier, str(count[tier]), str(amount[tier])] for tier in count)
    assert json.loads(text(nb.cells[3], "stdout")) == expected
    assert json.loads(text(nb.cells[5], "stdout")) == expected  # the update display folds to the same table
    assert "Received a total of" in text(nb.cells[4], "display")
    assert json.loads(text(nb.cells[7], "stdout")) == [[str(len(orders))]]
    assert json.loads(text(nb.cells[9], "stdout")) == sorted(["+I", row[0]] for row in orders if row[2] == "USD")
    # no --as: the live display ends as its status line and the cell's value is the DataFrame
    last = nb.cells[10]
    assert text(last, "display") == \
        f"{len(users)} rows in set (the oldest {len(users) - 2} rows were dropped: --max-rows keeps 2)"
    assert "user_id" in text(last, "result") and len(text(last, "result").splitlines()) == 3


# ---- interrupt, errors, a gateway that is not there -----------------------------------------------------------


def _run(kc, code: str, timeout: float = 120) -> tuple[dict, list[dict]]:
    """Execute `code` on the kernel; its reply and its iopub messages."""
    msg_id = kc.execute(code)
    messages = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        messages.append(msg)
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    return kc.get_shell_msg(timeout=timeout)["content"], messages


def _jobs(settings: Settings) -> dict[str, str]:
    return {j["jid"]: j["state"] for j in FlinkRest(resolve_rest_url(settings)).get("/jobs/overview")["jobs"]}


def test_interrupt_cancels_the_query_and_its_job(settings: Settings) -> None:
    env = kernel_env(settings)
    before = _jobs(settings)
    km, kc = start_new_kernel(kernel_name="python3", env=env)
    try:
        reply, _ = _run(kc, "%load_ext flinklab.notebook\n%flink_connect")
        assert reply["status"] == "ok"
        msg_id = kc.execute("%%flink --display update --refresh-ms 100\n"
                            "CREATE TEMPORARY TABLE ticks (id BIGINT) WITH ('connector' = 'datagen', "
                            "'rows-per-second' = '20');\nSELECT COUNT(*) AS n FROM ticks")
        messages = []
        while True:  # until the live display shows rows arriving
            msg = kc.get_iopub_msg(timeout=120)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            messages.append(msg)
            shown = msg["content"].get("data", {}).get("text/plain", "")
            if msg["msg_type"] in ("display_data", "update_display_data") and \
                    re.search(r"received [1-9]\d* rows? so far", shown):
                break
        running = [jid for jid, state in _jobs(settings).items() if jid not in before and state == "RUNNING"]
        assert len(running) == 1, _jobs(settings)
        km.interrupt_kernel()
        while True:
            msg = kc.get_iopub_msg(timeout=60)
            if msg["parent_header"].get("msg_id") == msg_id:
                messages.append(msg)
                if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                    break
        reply = kc.get_shell_msg(timeout=60)["content"]
        assert reply["status"] == "ok"  # no KeyboardInterrupt traceback
        assert not [m for m in messages if m["msg_type"] == "error"]
        printed = "".join(m["content"]["text"] for m in messages if m["msg_type"] == "stream")
        assert re.fullmatch(r"\[INFO\] Execute statement succeeded\.\n"
                            r"Query terminated, received a total of \d+ rows\n", printed), printed
        deadline = time.monotonic() + 60
        while _jobs(settings)[running[0]] != "CANCELED":
            assert time.monotonic() < deadline, _jobs(settings)
            time.sleep(0.2)  # polling Flink's REST API for the job's state
        reply, after = _run(kc, "%%flink\nSET 'execution.runtime-mode' = 'batch';\nSELECT 41 + 1 AS x")
        assert reply["status"] == "ok"  # the kernel's session goes on
        assert any("42" in m["content"].get("data", {}).get("text/plain", "") for m in after)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_errors_are_one_block_or_one_line_never_a_traceback(settings: Settings, tmp_path: Path) -> None:
    bad_token = tmp_path / "token"
    bad_token.write_text("not-the-token\n", encoding="utf-8")
    dead = f"http://127.0.0.1:{free_port()}"
    nb = run_notebook(code_notebook([
        "%load_ext flinklab.notebook",
        "%%flink\nSELECT nope FROM no_such_table",
        "%%flink\nCREATE TEMPORARY TABLE gone (x STRING) WITH ('connector' = 'filesystem', "
        f"'path' = '{tmp_path}/missing.csv', 'format' = 'csv');\nSELECT * FROM gone",
        f"%flink_connect {dead}",
        f"%flink_connect {settings.gateway_url} --token-file {bad_token}",
        "%flink_connect http://no-such-host.invalid:8083",
        "%%flink --display table\nSELECT 1",
        "%%flink\nSET 'execution.runtime-mode' = 'batch';\nSELECT 'still here' AS s",
    ]), settings)
    assert tracebacks(nb) == []
    planner = text(nb.cells[1], "stdout")
    assert planner == ("[ERROR] Could not execute SQL statement. Reason:\n"
                       "org.apache.calcite.sql.validate.SqlValidatorException: Object 'no_such_table' not found\n")
    job = text(nb.cells[2], "stdout")
    assert job.startswith("[INFO] Execute statement succeeded.\n[ERROR] Could not execute SQL statement. Reason:\n")
    assert "missing.csv" in job and "Traceback" not in job
    lines = [text(nb.cells[i], "stderr") for i in (3, 4, 5, 6)]
    assert lines[0] == f"No SQL gateway answers at {dead}. Start the cluster and its gateway with `flink-up`.\n"
    assert lines[1].startswith(f"The SQL gateway at {settings.gateway_url} refused this client (401 Unauthorized")
    assert lines[2].startswith("No SQL gateway answers at http://no-such-host.invalid:8083.")
    assert lines[3].startswith("%%flink: argument --display: invalid choice: 'table'")
    assert all(line.count("\n") == 1 for line in lines), lines
    assert "still here" in text(nb.cells[7], "result")  # a failed %flink_connect keeps the session it had
    assert read_token(settings.state_dir) != "not-the-token"


def test_bad_numbers_are_one_line_and_a_failed_query_leaves_no_progress_line(settings: Settings) -> None:
    nb = run_notebook(code_notebook([
        "%load_ext flinklab.notebook",
        "%%flink --max-rows 0\nSELECT 1",
        "%%flink --refresh-ms 5\nSELECT 1",
        "%%flink\nSET 'execution.runtime-mode' = 'batch';\nSELECT CAST('x' AS INT) AS bad",
        "%%flink\nSET 'execution.runtime-mode' = 'batch';\nSELECT 'still here' AS s",
    ]), settings)
    assert tracebacks(nb) == []
    assert text(nb.cells[1], "stderr") == ("%%flink: --max-rows must be a positive whole number, not '0'. "
                                           "For example: --max-rows 100\n")
    assert text(nb.cells[2], "stderr") == ("%%flink: --refresh-ms must be a whole number of milliseconds, at least "
                                           "100, not '5'. For example: --refresh-ms 500\n")
    failed = nb.cells[3]
    assert "[ERROR] Could not execute SQL statement. Reason:" in text(failed, "stdout")
    shown = [t for kind, t in outputs(failed) if kind in ("display", "result")]
    assert "Running:" not in "".join(shown) and all(t == "" for t in shown), shown  # no row came: nothing shown
    assert "still here" in text(nb.cells[4], "result")


def test_a_gateway_that_goes_away_is_one_line_and_the_next_cell_reconnects(flink_cluster: Settings,
                                                                            tmp_path: Path) -> None:
    """A gateway of the test's own (its state dir, its port, its token), stopped under a connected kernel."""
    from flinklab.access import token_path
    from flinklab.environment import gateway

    own = flink_cluster.with_overrides(state_dir=tmp_path / "gateway", gateway_port=free_port())
    own.state_dir.mkdir()
    process = gateway.GatewayProcess(own, resolve_rest_url(flink_cluster))
    process.up()
    km, kc = start_new_kernel(kernel_name="python3", env=kernel_env(flink_cluster))
    try:
        reply, _ = _run(kc, f"%load_ext flinklab.notebook\n%flink_connect {own.gateway_url} "
                            f"--token-file {token_path(own.state_dir)}")
        assert reply["status"] == "ok"
        select = "%%flink\nSET 'execution.runtime-mode' = 'batch';\nSELECT {} AS x"
        reply, shown = _run(kc, select.format(1))
        assert reply["status"] == "ok" and not [m for m in shown if m["msg_type"] == "error"]
        process.down()
        reply, shown = _run(kc, select.format(2))
        assert reply["status"] == "ok" and not [m for m in shown if m["msg_type"] == "error"]
        err = "".join(m["content"]["text"] for m in shown if m["msg_type"] == "stream"
                      and m["content"]["name"] == "stderr")
        assert err == (f"The SQL gateway at {own.gateway_url} does not answer. Start it again (`flink-up`), then run "
                       "the cell again: it opens a new session.\n")
        process.up()  # a new token in the same file
        reply, shown = _run(kc, select.format(41 + 1))
        assert reply["status"] == "ok"
        out = "".join(m["content"]["text"] for m in shown if m["msg_type"] == "stream")
        assert out.startswith(f"[WARNING] A new session on the SQL gateway at {own.gateway_url}")
        assert any("42" in m["content"].get("data", {}).get("text/plain", "") for m in shown)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        process.down()
