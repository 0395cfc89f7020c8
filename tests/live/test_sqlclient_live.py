"""The runner against a real local cluster (the session's `flink_cluster`), through one runner JVM (`sql_client`).

Checks what a learner relies on: the printed output (one parser reads it), the op column of a streaming
aggregation, jobs that really ran on the cluster (FINISHED in its REST API), tables from `-i` surviving a switch
to batch mode, Flink's own error text, the console script's exit statuses, and that our tableau equals PyFlink's
`TableResult.print()` line for line.
"""

from __future__ import annotations

import io
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.env import free_port, settings_env

from flinklab.environment.client import SqlClient
from flinklab.flink.rest import FlinkRest
from flinklab.grading.parse import parse_output
from flinklab.settings import Settings
from flinklab.sqlclient import tableau
from flinklab.sqlclient.client import cells, column_type, run_invocation

ORDERS_CSV = """\
1,a,1.50,2024-01-01 09:00:00
2,a,2.25,2024-01-01 09:05:00
3,b,10.00,2024-01-01 09:07:00
4,a,4.00,2024-01-01 09:12:00
5,c,0.00,2024-01-01 09:15:00
"""

DDL = """\
-- tables for the tests; created in the default (streaming) mode
CREATE TABLE orders (
  id INT, k STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'file://{data}/orders.csv', 'format' = 'csv');
CREATE TABLE sink (k STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'blackhole');
"""

SCRIPT = """\
SET 'sql-client.execution.result-mode' = 'tableau';
SELECT k, COUNT(*) AS n, SUM(amount) AS total FROM orders GROUP BY k;
SET 'execution.runtime-mode' = 'batch';
SELECT COUNT(*) AS cnt FROM orders;
SELECT id FROM orders WHERE amount > 1000;
SET execution.runtime-mode=streaming;
INSERT INTO sink SELECT k, amount FROM orders;
COMPILE PLAN 'file://{data}/sink-plan.json' FOR INSERT INTO sink SELECT k, amount FROM orders WHERE amount > 2;
EXPLAIN SELECT k FROM orders WHERE amount > 2;
"""


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("runner")
    (data / "orders.csv").write_text(ORDERS_CSV)
    (data / "ddl.sql").write_text(DDL.format(data=data))
    return data


def wait_finished(rest: FlinkRest, job_id: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    state = ""
    while time.monotonic() < deadline:
        state = rest.job(job_id)["state"]
        if state in ("FINISHED", "FAILED", "CANCELED"):
            return state
        time.sleep(0.5)
    return state


def cli_env(settings: Settings) -> dict[str, str]:
    return settings_env(settings)


def sql_client_sh() -> str:
    return str(Path(sys.executable).with_name("sql-client.sh"))


@pytest.mark.live
def test_script_runs_every_kind_of_statement_on_the_cluster(
    flink_cluster: Settings, sql_client: SqlClient, workdir: Path
) -> None:
    script = workdir / "all.sql"
    script.write_text(SCRIPT.format(data=workdir))
    out = io.StringIO()
    result = run_invocation(sql_client, out, init_files=[workdir / "ddl.sql"], script_file=script)
    text = out.getvalue()

    assert result.ok, text
    init_kinds = ["ddl", "ddl"]
    script_kinds = ["set", "query", "set", "query", "query", "set", "insert", "compile_plan", "explain"]
    assert [s.kind for s in result.statements] == init_kinds + script_kinds
    assert text.startswith(f"Successfully initialized from sql script: {workdir / 'ddl.sql'}\n"
                           "[INFO] Executing SQL from file.\n\nFlink SQL> SET 'sql-client")
    assert text.endswith("\nFlink SQL> \nShutting down the session...\ndone.\n")
    assert "CREATE TABLE" not in text  # -i runs silently, as in the real client

    parsed = parse_output(text)
    assert not parsed.errors
    streaming, count, empty = parsed.tables[:3]  # (the EXPLAIN result follows)
    assert {"-U", "+U"} <= streaming.ops_seen()
    final = {row[0]: row[1:] for op, row in zip(streaming.ops, streaming.rows) if op in ("+I", "+U")}
    assert final == {"a": ["3", "7.75"], "b": ["1", "10.00"], "c": ["1", "0.00"]}
    assert count.ops is None and count.rows == [["5"]]  # batch over a table created in streaming mode
    assert empty.rows == [] and empty.footer_rows == 0
    assert "Empty set (" in text and "Received a total of 7 rows (" in text
    assert "== Abstract Syntax Tree ==" in text and "== Optimized Execution Plan ==" in text

    insert = next(s for s in result.statements if s.kind == "insert")
    assert (
        f"[INFO] SQL update statement has been successfully submitted to the cluster:\nJob ID: {insert.job_id}\n"
        in text
    )
    assert parsed.job_ids == [insert.job_id]
    plan = json.loads((workdir / "sink-plan.json").read_text())
    assert plan["nodes"] and plan["flinkVersion"].startswith("2.")

    rest = FlinkRest(flink_cluster.rest_url)
    assert len(result.job_ids) == 4  # three queries and the INSERT
    for job_id in result.job_ids:
        assert wait_finished(rest, job_id) == "FINISHED", job_id


@pytest.mark.live
def test_query_without_tableau_mode_is_rejected_like_the_real_client(
    sql_client: SqlClient, workdir: Path
) -> None:
    script = workdir / "no_tableau.sql"
    script.write_text("SELECT COUNT(*) FROM orders;\nSELECT 1;\n")
    out = io.StringIO()
    result = run_invocation(sql_client, out, init_files=[workdir / "ddl.sql"], script_file=script)
    assert not result.ok
    job = result.statements[-1].job_id  # submitted, as by the real client; closing it cancels what still runs
    assert job and wait_finished(FlinkRest(sql_client.cluster_url), job) in ("CANCELED", "FINISHED")
    assert out.getvalue().endswith(
        "Flink SQL> SELECT COUNT(*) FROM orders;\n"
        "[ERROR] Could not execute SQL statement. Reason:\n"
        "org.apache.flink.table.client.gateway.SqlExecutionException: In non-interactive mode, it only supports "
        "to use TABLEAU as value of sql-client.execution.result-mode when execute query. Please add "
        "'SET sql-client.execution.result-mode=TABLEAU;' in the sql file.\n"
        "\nShutting down the session...\ndone.\n"
    )


@pytest.mark.live
def test_failed_job_and_init_errors_are_reported(sql_client: SqlClient, workdir: Path) -> None:
    bad_rows = workdir / "bad.csv"
    bad_rows.write_text("1,x\n")
    init = workdir / "bad_ddl.sql"
    init.write_text(
        f"CREATE TABLE broken (id INT, n INT) WITH ('connector'='filesystem','path'='file://{bad_rows}',"
        "'format'='csv');\nCREATE TABLE bh (n INT) WITH ('connector'='blackhole');\n"
    )
    script = workdir / "bad_job.sql"
    script.write_text("INSERT INTO bh SELECT n FROM broken;\nSELECT 1;\n")
    out = io.StringIO()
    result = run_invocation(sql_client, out, init_files=[init], script_file=script)
    assert not result.ok
    failed = result.statements[-1]
    assert failed.kind == "insert" and failed.job_id  # submitted, then the job failed on the bad row
    assert f"Job ID: {failed.job_id}\n\n[ERROR] Could not execute SQL statement. Reason:\n" in out.getvalue()
    assert "SELECT 1" not in out.getvalue()

    init.write_text("CREATE TABLE t (a INT) WITH ('connector'='blackhole');\nSELECT 1;\n")
    out = io.StringIO()
    result = run_invocation(sql_client, out, init_files=[init], script_file=script)
    assert not result.ok and [s.ok for s in result.statements] == [True, False]
    assert (
        "java.lang.UnsupportedOperationException: Unsupported statement for configuring session:SELECT 1;"
        in (out.getvalue())
    )
    assert f"Failed to initialize from sql script: {init}. See the [ERROR] above." in out.getvalue()
    assert "[INFO] Executing SQL from file." not in out.getvalue()
    assert "Successfully initialized" not in out.getvalue()


@pytest.mark.live
def test_console_script_exit_statuses_and_error_block(flink_cluster: Settings, workdir: Path) -> None:
    good = workdir / "three.sql"
    good.write_text(
        "SET 'sql-client.execution.result-mode' = 'tableau';\n"
        "SET 'execution.runtime-mode' = 'batch';\n"
        "SELECT COUNT(*) AS cnt FROM orders;\n"
    )
    started = time.monotonic()
    run = subprocess.run(
        check=False,
        args=[sql_client_sh(), "-i", str(workdir / "ddl.sql"), "-f", str(good)],
        env=cli_env(flink_cluster),
        capture_output=True,
        text=True,
        timeout=600,
    )
    print(f"3-statement script via sql-client.sh on the warm gateway: {time.monotonic() - started:.1f}s")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "|   5 |" in run.stdout and "1 row in set (" in run.stdout
    # Flink's SqlClient.openCli prints the -i argument as typed once the init file ran, before the -f file
    assert run.stdout.startswith(f"Successfully initialized from sql script: {workdir / 'ddl.sql'}\n"
                                 "[INFO] Executing SQL from file.\n")

    bad = workdir / "bad.sql"
    bad.write_text(
        "SET 'sql-client.execution.result-mode' = 'tableau';\nSELECT * FROM missing_table;\nSELECT 1;\n"
    )
    run = subprocess.run(
        check=False,
        args=[sql_client_sh(), "-i", str(workdir / "ddl.sql"), "-f", str(bad), "-D", "parallelism.default=1"],
        env=cli_env(flink_cluster),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 1
    assert (
        "Flink SQL> SELECT * FROM missing_table;\n[ERROR] Could not execute SQL statement. Reason:\n"
        "org.apache.calcite.sql.validate.SqlValidatorException: Object 'missing_table' not found\n"
    ) in run.stdout
    assert "SELECT 1" not in run.stdout
    reason = "org.apache.calcite.sql.validate.SqlValidatorException: Object 'missing_table' not found"
    assert parse_output(run.stdout).errors == [reason]


# ---- big results: every row arrives, fast ---------------------------------------------------------------------

BIG_ROWS = 20_000
BIG_SCRIPT = f"""\
SET 'sql-client.execution.result-mode' = 'tableau';
CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '{BIG_ROWS}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{BIG_ROWS}');
SELECT id, CAST(id AS DECIMAL(10, 2)) / 4 AS quarter, IF(MOD(id, 7) = 0, CAST(NULL AS STRING), '日本') AS k FROM gen;
SELECT id FROM gen WHERE id < 0;
SET 'execution.runtime-mode' = 'batch';
SELECT id, CAST(id AS DECIMAL(10, 2)) / 4 AS quarter FROM gen;
"""


@pytest.mark.live
def test_a_big_result_arrives_whole_in_streaming_and_batch(sql_client: SqlClient) -> None:
    out = io.StringIO()
    result = sql_client.new_session().run_script(BIG_SCRIPT, out)
    text = out.getvalue()
    assert result.ok, text[-2000:]
    assert [s.rows for s in result.statements if s.kind == "query"] == [BIG_ROWS, 0, BIG_ROWS]

    streaming, empty, batch = parse_output(text).tables
    assert streaming.ops_seen() == {"+I"}
    assert sorted(int(row[0]) for row in streaming.rows) == list(range(1, BIG_ROWS + 1))
    by_id = {row[0]: row[1:] for row in streaming.rows}
    assert by_id["6"] == ["1.5000000000000", "日本"] and by_id["7"] == ["1.7500000000000", None]
    assert "| +I |                    6 |" in text  # type-inferred widths (BIGINT: 20), from the first row on
    assert f"+\nReceived a total of {BIG_ROWS} rows (" in text
    # no row: the header and the footer, without a closing border (as the client)
    assert empty.rows == []
    assert "| op |                   id |\n+----+----------------------+\nReceived a total of 0 row (" in text
    assert sorted(int(row[0]) for row in batch.rows) == list(range(1, BIG_ROWS + 1))
    assert f"+\n{BIG_ROWS} rows in set (" in text
    # Speed (~10k rows/s printed in the JVM vs ~1k with a py4j round trip per row) is scripts/bench.py's business:
    # a timed assertion fails on a busy shared machine.


@pytest.mark.live
def test_a_query_whose_job_fails_prints_its_rows_then_the_error(sql_client: SqlClient, workdir: Path) -> None:
    rows = workdir / "bad_late.csv"
    rows.write_text("1,1\n2,2\nx,y\n")
    script = (
        "SET 'sql-client.execution.result-mode' = 'tableau';\n"
        f"CREATE TABLE late (id INT, n INT) WITH ('connector'='filesystem','path'='file://{rows}','format'='csv');\n"
        "SELECT id, n FROM late;\n"
    )
    out = io.StringIO()
    result = sql_client.new_session().run_script(script, out)
    text = out.getvalue()
    assert not result.ok and result.statements[-1].kind == "query" and result.statements[-1].job_id
    assert "| op |          id |           n |\n+----+-------------+-------------+\n" in text
    assert "\n[ERROR] Could not execute SQL statement. Reason:\n" in text
    assert "Received a total" not in text


SHORT_KINDS = {"INSERT": "+I", "UPDATE_BEFORE": "-U", "UPDATE_AFTER": "+U", "DELETE": "-D"}

# ---- our tableau == PyFlink's own TableResult.print() -------------------------------------------------------

NOTES_CSV = """\
1,a,1.50,2024-01-01 09:00:00,true,2024-01-02,short
2,a,2.25,2024-01-01 09:00:01.500,false,none,a note that is much longer than thirty characters
3,b,0,2024-01-01 09:00:02,true,2024-01-03,none
"""

# one file source: the changelog order is the same in every run (a VALUES list may become a union of sources)
NOTES_DDL = (
    "CREATE TABLE notes (id INT, k STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3), ok BOOLEAN, d STRING, "
    "note STRING) WITH ('connector' = 'filesystem', 'path' = 'file://{path}', 'format' = 'csv')"
)

QUERIES = {
    "streaming": [
        (
            "SELECT k, COUNT(*) AS n, SUM(NULLIF(amount, 0)) AS total, MIN(NULLIF(note, 'none')) AS note "
            "FROM notes GROUP BY k"
        ),
        "SELECT id, ts, ok, CAST(NULLIF(d, 'none') AS DATE) AS d FROM notes",
    ],
    "batch": ["SELECT k, COUNT(*) AS n, SUM(NULLIF(amount, 0)) AS total FROM notes GROUP BY k ORDER BY k"],
}

PYFLINK_PRINT = """
import sys
from pyflink.common import Configuration
from pyflink.table import EnvironmentSettings, TableEnvironment
queries = {queries!r}
for mode, statements in queries.items():
    conf = Configuration()
    for k, v in {{"execution.target": "remote", "rest.address": "127.0.0.1", "rest.port": "{port}",
                 "execution.runtime-mode": mode}}.items():
        conf.set_string(k, v)
    env = TableEnvironment.create(EnvironmentSettings.new_instance().with_configuration(conf).build())
    env.execute_sql({ddl!r})
    for q in statements:
        print("=== " + mode, flush=True)
        env.execute_sql(q).print()
print("=== end", flush=True)
"""


@pytest.mark.live
def test_tableau_equals_pyflink_print(flink_cluster: Settings, sql_client: SqlClient, workdir: Path) -> None:
    (workdir / "notes.csv").write_text(NOTES_CSV)
    ddl = NOTES_DDL.format(path=workdir / "notes.csv")
    code = PYFLINK_PRINT.format(queries=QUERIES, port=flink_cluster.rest_port, ddl=ddl)
    run = subprocess.run(
        check=False, args=[sys.executable, "-c", code], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr[-2000:]
    printed = [block.strip("\n").split("\n")[1:] for block in run.stdout.split("=== ")[1:-1]]

    ours = []
    api = sql_client.api
    for mode, statements in QUERIES.items():
        session = sql_client.new_session({"execution.runtime-mode": mode})
        assert session.run_init(ddl, io.StringIO()).ok
        for query in statements:
            pages = [p for p in api.pages(session.handle, api.execute(session.handle, query)) if p.columns]
            columns = [column_type(c) for c in pages[0].columns]
            rows = [row for page in pages for row in page.rows]
            kinds = [SHORT_KINDS[r["kind"]] for r in rows] if mode == "streaming" else None
            ours.append(tableau.render_typed(columns, [cells(r) for r in rows], kinds))
    assert ours == printed
    assert any("..." in line for line in ours[0]) and any("<NULL>" in line for line in ours[0])
    assert "| +I |           1 | 2024-01-01 09:00:00.000 |   TRUE | 2024-01-02 |" in ours[1]

    # the runner's printed streaming tableau is the same table; only the footer differs (anchors §2.5)
    script = f"SET 'sql-client.execution.result-mode' = 'tableau';\n{ddl};\n{QUERIES['streaming'][0]};\n"
    out = io.StringIO()
    assert sql_client.new_session().run_script(script, out).ok, out.getvalue()
    table = [line for line in out.getvalue().split("\n") if line.startswith(("+", "|"))]
    assert table == printed[0][:-1]


# ---- the gateway syntax, no gateway, Ctrl-C -------------------------------------------------------------------


@pytest.mark.live
def test_gateway_mode_with_an_endpoint_as_flinks_client(flink_cluster: Settings, workdir: Path) -> None:
    script = workdir / "endpoint.sql"
    script.write_text("SET 'sql-client.execution.result-mode' = 'tableau';\nSELECT 40 + 2 AS answer;\n")
    env = cli_env(flink_cluster)
    env["FLINKLAB_GATEWAY_PORT"] = "1"  # only --endpoint can lead it to the gateway
    run = subprocess.run(
        [sql_client_sh(), "gateway", "--endpoint", f"127.0.0.1:{flink_cluster.gateway_port}", "-f", str(script)],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "|          42 |" in run.stdout and "Received a total of 1 row (" in run.stdout


@pytest.mark.live
def test_embedded_mode_starts_its_own_gateway_and_prints_the_same(flink_cluster: Settings, workdir: Path) -> None:
    script = workdir / "embedded.sql"
    script.write_text("SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'execution.runtime-mode' = 'batch';\n"
                      "SELECT 40 + 2 AS answer;\n")
    env = cli_env(flink_cluster)
    runs = {}
    for mode, gateway_port in (("embedded", str(free_port())), ("gateway", str(flink_cluster.gateway_port))):
        env["FLINKLAB_GATEWAY_PORT"] = gateway_port  # embedded: no gateway answers there, its own is used
        args = [sql_client_sh(), *(["embedded"] if mode == "embedded" else []), "-f", str(script)]
        runs[mode] = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300, check=False)
        assert runs[mode].returncode == 0, runs[mode].stdout + runs[mode].stderr
    assert "|     42 |" in runs["embedded"].stdout and "1 row in set (" in runs["embedded"].stdout

    def without_time(text: str) -> str:
        return re.sub(r"\(\d+\.\d+ seconds\)", "(T seconds)", text)

    assert without_time(runs["embedded"].stdout) == without_time(runs["gateway"].stdout)


@pytest.mark.live
def test_no_gateway_is_one_line_naming_the_url_and_exit_2(flink_cluster: Settings, workdir: Path) -> None:
    script = workdir / "nogw.sql"
    script.write_text("SELECT 1;\n")
    env = cli_env(flink_cluster)
    env["FLINKLAB_GATEWAY_PORT"] = str(free_port())  # the cluster answers, no gateway does
    run = subprocess.run([sql_client_sh(), "-f", str(script)], env=env, capture_output=True, text=True,
                         timeout=60, check=False)
    assert run.returncode == 2 and run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and f"No SQL gateway answers at http://127.0.0.1:{env['FLINKLAB_GATEWAY_PORT']}" \
        in lines[0] and "flink-up" in lines[0], lines


@pytest.mark.live
def test_ctrl_c_in_a_streaming_query_terminates_it_and_cancels_its_job(flink_cluster: Settings,
                                                                        workdir: Path) -> None:
    script = workdir / "endless.sql"
    script.write_text(
        "SET 'sql-client.execution.result-mode' = 'tableau';\n"
        "CREATE TEMPORARY TABLE endless (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '20');\n"
        "SELECT id FROM endless;\n"
    )
    rest = FlinkRest(flink_cluster.rest_url)
    before = {j.job_id for j in rest.jobs()}
    proc = subprocess.Popen([sql_client_sh(), "-f", str(script)], env=cli_env(flink_cluster),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seen = ""
        deadline = time.monotonic() + 180
        while seen.count("| +I |") < 3:  # rows are printed as they arrive
            line = proc.stdout.readline()
            assert line and time.monotonic() < deadline, seen + proc.stderr.read()
            seen += line
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    text = seen + out
    assert proc.returncode == 130, text + err
    assert "Traceback" not in text + err and "py4j" not in text + err
    terminated = [line for line in text.splitlines() if line.startswith("Query terminated, received a total of ")]
    assert len(terminated) == 1 and int(terminated[0].split()[-2]) >= 3
    new = [j.job_id for j in rest.jobs() if j.job_id not in before]
    assert len(new) == 1 and wait_finished(rest, new[0]) == "CANCELED"
