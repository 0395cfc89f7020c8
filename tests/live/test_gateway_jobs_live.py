"""What Flink's SQL gateway does itself, on the live cluster: the `job id` answer of every statement that submits a
job, SET checked before it is taken, and SHOW JOBS / DESCRIBE JOB / STOP JOB (flinklab/gateway/jobs.py), over REST
in both row formats, from `sql-client.sh` and from the shell on a pseudo-terminal.

Expected texts are Flink's: OperationExecutor (fetchJobId, callShowJobsOperation, callDescribeJobOperation,
callStopJobOperation), SessionContext.set, the gateway's set.q (`No enum constant ...SqlDialect.UNKNOWN`). What a
job is, is asked of the cluster's own REST API, never of the gateway under test.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import httpx
import pytest
from helpers.env import settings_env
from helpers.shell_term import Term

from flinklab.cluster.base import resolve_rest_url
from flinklab.flink.rest import FlinkRest
from flinklab.settings import Settings
from flinklab.sqlclient.printer import reason_from_server
from flinklab.sqlclient.protocol import GatewayError

pytestmark = pytest.mark.live

STRING = {"type": "VARCHAR", "nullable": True, "length": 2147483647}
JOB_ID_COLUMN = [{"name": "job id", "logicalType": STRING, "comment": None}]
FORMATS = ("JSON", "PLAIN_TEXT")
UNBOUNDED = ("CREATE TEMPORARY TABLE IF NOT EXISTS endless (id BIGINT) WITH ('connector' = 'datagen', "
             "'rows-per-second' = '5')",
             "CREATE TEMPORARY TABLE IF NOT EXISTS sink (id BIGINT) WITH ('connector' = 'blackhole')")


class Gateway:
    """Flink's SQL Gateway REST protocol, by hand (httpx), on one session."""

    def __init__(self, http: httpx.Client, properties: dict[str, str] | None = None):
        self.http = http
        response = http.post("/v3/sessions", json={"properties": properties or {}})
        assert response.status_code == 200, response.text
        self.session = response.json()["sessionHandle"]

    def run(self, statement: str, row_format: str = "JSON") -> list[dict]:
        """Every result body up to EOS; an error body (500) raises AssertionError with its text."""
        response = self.http.post(f"/v3/sessions/{self.session}/statements", json={"statement": statement})
        assert response.status_code == 200, response.text
        operation = response.json()["operationHandle"]
        uri: str | None = f"/v3/sessions/{self.session}/operations/{operation}/result/0?rowFormat={row_format}"
        bodies = []
        deadline = time.monotonic() + 300
        while uri is not None:
            assert time.monotonic() < deadline, bodies[-3:]  # a hung gateway, not a speed check
            response = self.http.get(uri)
            assert response.status_code == 200, response.text
            body = response.json()
            if body["resultType"] != "NOT_READY":
                bodies.append(body)
            uri = body.get("nextResultUri")
        return bodies

    def error(self, statement: str) -> str:
        """The server-side exception text of a statement that fails (inside `<Exception on server side: ...>`)."""
        response = self.http.post(f"/v3/sessions/{self.session}/statements", json={"statement": statement})
        operation = response.json()["operationHandle"]
        uri = f"/v3/sessions/{self.session}/operations/{operation}/result/0"
        deadline = time.monotonic() + 300
        while True:
            assert time.monotonic() < deadline
            response = self.http.get(uri)
            if response.status_code != 200:
                return GatewayError(response.status_code, response.json()["errors"]).server_side
            body = response.json()
            assert body["resultType"] == "NOT_READY", f"{statement} did not fail: {body}"

    def rows(self, statement: str, row_format: str = "JSON") -> list[list]:
        return [row["fields"] for body in self.run(statement, row_format) for row in body["results"]["data"]]

    def config(self) -> dict[str, str]:
        return self.http.get(f"/v3/sessions/{self.session}").json()["properties"]


@pytest.fixture(scope="module")
def http(flink_cluster: Settings) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=flink_cluster.gateway_url, timeout=120) as client:
        yield client


@pytest.fixture(scope="module")
def cluster(flink_cluster: Settings) -> FlinkRest:
    return FlinkRest(resolve_rest_url(flink_cluster))


def wait_state(cluster: FlinkRest, job_id: str, states: tuple[str, ...], timeout: float = 120.0) -> str:
    """Until the cluster reports the job in one of `states` (polling the cluster's REST API)."""
    deadline = time.monotonic() + timeout
    while (state := cluster.job(job_id)["state"]) not in states:
        assert time.monotonic() < deadline, f"job {job_id} still {state}"
        time.sleep(0.2)
    return state


def start_unbounded(gateway: Gateway, cluster: FlinkRest, timeout: float = 120.0) -> str:
    """An endless INSERT, once all its tasks run (a savepoint of a job whose source is still deploying fails)."""
    for ddl in UNBOUNDED:
        gateway.run(ddl)
    job_id = gateway.run("INSERT INTO sink SELECT id FROM endless")[0]["jobID"]
    deadline = time.monotonic() + timeout
    while not all(v["status"] == "RUNNING" for v in cluster.job(job_id)["vertices"]):
        assert time.monotonic() < deadline, f"the tasks of job {job_id} are not all running"
        time.sleep(0.2)
    return job_id


# ---- the job id of every statement that submits one -------------------------------------------------------------

def test_every_submitting_statement_answers_one_job_id_column(http: httpx.Client, cluster: FlinkRest,
                                                              tmp_path: Path) -> None:
    gateway = Gateway(http, {"execution.runtime-mode": "batch"})
    gateway.run("CREATE TABLE few (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3')")
    gateway.run("CREATE TABLE sink (id INT) WITH ('connector' = 'blackhole')")
    insert = "INSERT INTO sink SELECT id FROM few"
    for row_format in FORMATS:
        plan = tmp_path / f"plan-{row_format}.json"
        answers = {
            "INSERT": gateway.run(insert, row_format),
            "EXECUTE STATEMENT SET": gateway.run(f"EXECUTE STATEMENT SET BEGIN {insert}; {insert}; END",
                                                 row_format),
            "COMPILE AND EXECUTE PLAN": gateway.run(f"COMPILE AND EXECUTE PLAN '{plan}' FOR {insert}", row_format),
            "EXECUTE PLAN": gateway.run(f"EXECUTE PLAN '{plan}'", row_format),
            "CTAS": gateway.run(f"CREATE TABLE ctas_{row_format} WITH ('connector' = 'blackhole') AS "
                                "SELECT id FROM few", row_format),
        }
        assert gateway.rows("BEGIN STATEMENT SET", row_format) == [["OK"]]
        assert gateway.rows(insert, row_format) == [["OK"]]  # collected, not run
        assert gateway.rows(insert, row_format) == [["OK"]]
        answers["BEGIN STATEMENT SET ... END"] = gateway.run("END", row_format)
        for kind, bodies in answers.items():
            first = bodies[0]
            job_id = first["jobID"]
            assert first["resultKind"] == "SUCCESS_WITH_CONTENT" and first["isQueryResult"] is False, kind
            assert first["results"]["columns"] == JOB_ID_COLUMN, kind
            assert first["results"]["data"] == [{"kind": "INSERT", "fields": [job_id]}], kind
            assert [b["resultType"] for b in bodies] == ["PAYLOAD", "EOS"], kind
            assert wait_state(cluster, job_id, ("FINISHED",)) == "FINISHED", kind  # a job the cluster ran


# ---- SET, checked as Flink's SessionContext.set checks it ---------------------------------------------------------

def test_set_of_an_unknown_dialect_fails_with_flinks_message_and_changes_nothing(http: httpx.Client) -> None:
    gateway = Gateway(http)
    before = gateway.rows("SET")
    text = gateway.error("SET 'table.sql-dialect' = 'unknown'")
    assert reason_from_server(text) == \
        "java.lang.IllegalArgumentException: No enum constant org.apache.flink.table.api.SqlDialect.UNKNOWN"
    assert ("SqlExecutionException: Failed to set key table.sql-dialect with value unknown.\n"
            "Caused by: java.lang.IllegalArgumentException: No enum constant") in text
    assert "at flinklab" not in text and "\tat java.base/java.lang.Enum.valueOf(" in text  # a real Java trace
    assert gateway.rows("SET") == before
    assert "table.sql-dialect" not in gateway.config()
    # any typed option whose value the TableEnvironment cannot take fails so, and a good value still goes in
    assert reason_from_server(gateway.error("SET 'parallelism.default' = 'many'")) == \
        'java.lang.NumberFormatException: For input string: "many"'
    assert reason_from_server(gateway.error("SET 'execution.runtime-mode' = 'sideways'")).startswith(
        "java.lang.IllegalArgumentException: Could not parse value for enum class "
        "org.apache.flink.api.common.RuntimeExecutionMode.")
    assert gateway.rows("SET 'table.sql-dialect' = 'default'") == [["OK"]]
    assert gateway.config()["table.sql-dialect"] == "default"
    assert "parallelism.default" not in gateway.config() and "execution.runtime-mode" not in gateway.config()


# ---- SHOW JOBS, DESCRIBE JOB, STOP JOB ------------------------------------------------------------------------

def _local_text(millis: int) -> str:
    instant = datetime.fromtimestamp(millis / 1000).astimezone()
    return instant.strftime("%Y-%m-%d %H:%M:%S.") + f"{millis % 1000:03d}"


def test_show_and_describe_jobs_in_both_row_formats(http: httpx.Client, cluster: FlinkRest) -> None:
    gateway = Gateway(http)
    job_id = start_unbounded(gateway, cluster)
    try:
        known = {j["jid"]: j for j in cluster.get("/jobs/overview")["jobs"]}
        started = known[job_id]["start-time"]
        bodies = gateway.run("SHOW JOBS")
        assert [c["name"] for c in bodies[0]["results"]["columns"]] == ["job id", "job name", "status", "start time"]
        assert bodies[0]["results"]["columns"][3]["logicalType"] == {
            "type": "TIMESTAMP_WITH_LOCAL_TIME_ZONE", "nullable": True, "precision": 3}
        shown = {row[0]: row for row in gateway.rows("SHOW JOBS")}
        assert set(known) <= set(shown)  # every job the cluster had a moment before
        mine = ["insert-into_default_catalog.default_database.sink", "RUNNING"]
        utc = datetime.utcfromtimestamp(started / 1000).strftime("%Y-%m-%dT%H:%M:%S.") + f"{started % 1000:03d}Z"
        assert shown[job_id] == [job_id, *mine, utc]  # flink-json's TIMESTAMP_LTZ: ISO-8601 in UTC
        assert gateway.rows("SHOW JOBS", "PLAIN_TEXT").count([job_id, *mine, _local_text(started)]) == 1
        assert gateway.rows(f"DESCRIBE JOB '{job_id}'", "PLAIN_TEXT") == [[job_id, *mine, _local_text(started)]]
        missing = "0" * 32
        assert reason_from_server(gateway.error(f"DESCRIBE JOB '{missing}'")) == (
            f"org.apache.flink.table.gateway.service.utils.SqlExecutionException: Described job {missing} does not "
            "exist in the cluster.")
        assert reason_from_server(gateway.error("DESCRIBE JOB 'nope'")) == (
            "java.lang.IllegalArgumentException: Cannot parse JobID from \"nope\". The expected format is "
            "[0-9a-fA-F]{32}, e.g. fd72014d4c864993a2e5a9287b4a9c5d.")
    finally:
        gateway.run(f"STOP JOB '{job_id}'")
    assert wait_state(cluster, job_id, ("CANCELED",)) == "CANCELED"


def test_stop_job_cancels_or_takes_a_savepoint_where_the_session_says(http: httpx.Client, cluster: FlinkRest,
                                                                      flink_cluster: Settings,
                                                                      tmp_path: Path) -> None:
    gateway = Gateway(http)
    job_id = start_unbounded(gateway, cluster)
    bodies = gateway.run(f"STOP JOB '{job_id}' WITH SAVEPOINT", "PLAIN_TEXT")
    assert bodies[0]["results"]["columns"] == [{"name": "savepoint path", "logicalType": STRING, "comment": None}]
    path = Path(bodies[0]["results"]["data"][0]["fields"][0].removeprefix("file:"))
    assert path.parent == (flink_cluster.state_dir / "savepoints").resolve()  # the gateway's default
    assert (path / "_metadata").is_file()
    assert wait_state(cluster, job_id, ("FINISHED", "CANCELED", "FAILED")) == "FINISHED"

    # the session's savepoint dir wins (the deprecated key too); WITH DRAIN ends the job with its sources drained
    elsewhere = tmp_path / "mine"
    gateway.run(f"SET 'state.savepoints.dir' = 'file://{elsewhere}'")  # jobs read it too: a scheme is a must
    job_id = start_unbounded(gateway, cluster)
    path = Path(gateway.rows(f"STOP JOB '{job_id}' WITH SAVEPOINT WITH DRAIN")[0][0].removeprefix("file:"))
    assert path.parent == elsewhere and (path / "_metadata").is_file()
    assert wait_state(cluster, job_id, ("FINISHED", "CANCELED", "FAILED")) == "FINISHED"

    text = gateway.error(f"STOP JOB '{job_id}'")  # it ended already: the cluster's answer is the cause
    assert f"SqlExecutionException: Could not stop job {job_id}  for operation " in text
    assert reason_from_server(text).startswith("org.apache.flink.runtime.rest.util.RestClientException: [")
    assert "Job cancellation failed because the job has already reached another terminal state (FINISHED)." in text

    job_id = start_unbounded(gateway, cluster)
    assert gateway.rows(f"STOP JOB '{job_id}'") == [["OK"]]
    assert wait_state(cluster, job_id, ("CANCELED", "FINISHED", "FAILED")) == "CANCELED"


def test_a_query_closed_as_its_job_starts_is_cancelled_and_the_taskmanagers_live_on(http: httpx.Client,
                                                                                     cluster: FlinkRest) -> None:
    # A client that closes a query the moment its job exists (Ctrl-C, SIGTERM, a step's time-out): a cancel that
    # reaches a task before its collect sink opened made Flink 2.2's TaskManager exit on the sink's
    # NullPointerException (FLINK-39330), failing every job on it; the gateway cancels once the tasks are open.
    gateway = Gateway(http)
    gateway.run(UNBOUNDED[0])
    taskmanagers = {tm["id"] for tm in cluster.taskmanagers()}
    cancelled = []
    for _ in range(6):
        before = {job.job_id for job in cluster.jobs()}
        query = "SELECT MOD(id, 3) AS k, COUNT(*) AS n FROM endless GROUP BY MOD(id, 3)"
        response = http.post(f"/v3/sessions/{gateway.session}/statements", json={"statement": query})
        operation = response.json()["operationHandle"]
        deadline = time.monotonic() + 120
        while not (new := {job.job_id for job in cluster.jobs()} - before):
            assert time.monotonic() < deadline, "the query's job never appeared"
            time.sleep(0.01)
        closed = http.delete(f"/v3/sessions/{gateway.session}/operations/{operation}/close")
        assert closed.status_code == 200, closed.text
        cancelled.append(new.pop())
    for job_id in cancelled:
        assert wait_state(cluster, job_id, ("CANCELED", "FAILED", "FINISHED"), timeout=60) == "CANCELED", job_id
    assert {tm["id"] for tm in cluster.taskmanagers()} == taskmanagers
    assert gateway.rows("SELECT 1") == [[1]]  # and the cluster still runs queries


# ---- from the clients ---------------------------------------------------------------------------------------------

def sql_client_sh() -> str:
    return str(Path(sys.executable).with_name("sql-client.sh"))


def test_show_and_stop_jobs_from_sql_client_sh(http: httpx.Client, cluster: FlinkRest, flink_cluster: Settings,
                                                tmp_path: Path) -> None:
    gateway = Gateway(http)
    job_id = start_unbounded(gateway, cluster)  # a job another session started (-f waits for its own INSERTs)
    script = tmp_path / "jobs.sql"
    script.write_text(f"SHOW JOBS;\nDESCRIBE JOB '{job_id}';\nSTOP JOB '{job_id}' WITH SAVEPOINT;\n")
    run = subprocess.run([sql_client_sh(), "-f", str(script)], env=settings_env(flink_cluster),
                         capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert "|                           job id |" in out and "|   status |              start time |" in out
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in out.splitlines() if f"| {job_id} |" in line]
    assert cells[0][:3] == [job_id, "insert-into_default_catalog.default_database.sink", "RUNNING"]
    assert len(cells) == 2  # SHOW JOBS and DESCRIBE JOB
    assert f"Flink SQL> STOP JOB '{job_id}' WITH SAVEPOINT;\n+---" in out
    savepoint = next(line for line in out.splitlines() if "/savepoints/savepoint-" in line).strip("| ")
    assert out.count("1 row in set") == 2  # DESCRIBE JOB and the savepoint path
    assert (Path(savepoint.removeprefix("file:")) / "_metadata").is_file()
    assert wait_state(cluster, job_id, ("FINISHED", "CANCELED", "FAILED")) == "FINISHED"


def test_show_and_stop_jobs_from_the_shell(http: httpx.Client, cluster: FlinkRest, flink_cluster: Settings) -> None:
    gateway = Gateway(http)
    job_id = start_unbounded(gateway, cluster)
    home = flink_cluster.state_dir.parent / "home"
    home.mkdir(exist_ok=True)
    term = Term(["-D", "sql-client.execution.result-mode=tableau"], {**settings_env(flink_cluster),
                                                                        "HOME": str(home)}, cols=160)
    try:
        term.wait_prompt()
        term.type_line("SHOW JOBS;")
        term.wait_for(" rows in set")  # the list is long (the whole test session's jobs): look in what was printed
        assert f"| {job_id} |" in term.transcript.decode("utf-8", "replace")
        term.wait_prompt()
        term.clear()
        term.type_line(f"DESCRIBE JOB '{job_id}';")
        term.wait_for("1 row in set")
        assert f"| {job_id} |" in term.text() and "RUNNING" in term.text()
        term.wait_prompt()
        term.type_line(f"STOP JOB '{job_id}';")
        term.wait_for("[INFO] Execute statement succeeded.")
        assert wait_state(cluster, job_id, ("CANCELED", "FINISHED", "FAILED")) == "CANCELED"
        term.wait_prompt()
        term.type_line("QUIT;")
        assert term.exit_status() == 0
    finally:
        term.close()


def test_verbose_errors_are_flinks_client_chain_without_made_up_frames(flink_cluster: Settings,
                                                                       tmp_path: Path) -> None:
    script = tmp_path / "verbose.sql"
    script.write_text("SET 'table.sql-dialect' = 'unknown';\n")
    quiet = subprocess.run([sql_client_sh(), "-f", str(script)], env=settings_env(flink_cluster),
                           capture_output=True, text=True, timeout=600, check=False)
    assert quiet.returncode == 1
    assert ("[ERROR] Could not execute SQL statement. Reason:\njava.lang.IllegalArgumentException: No enum constant "
            "org.apache.flink.table.api.SqlDialect.UNKNOWN\n") in quiet.stdout
    loud = subprocess.run([sql_client_sh(), "-f", str(script), "-D", "sql-client.verbose=true"],
                          env=settings_env(flink_cluster), capture_output=True, text=True, timeout=600, check=False)
    assert loud.returncode == 1
    assert ("Reason:\norg.apache.flink.runtime.rest.util.RestClientException: [Internal server error., "
            "<Exception on server side:\n") in loud.stdout
    assert "\tat java.base/java.lang.Enum.valueOf(" in loud.stdout
    assert "End of exception on server side>]" in loud.stdout
    assert "flinklab.gateway" not in loud.stdout
