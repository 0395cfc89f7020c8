"""flinklab's SQL gateway by plain HTTP, as Flink's SQL Gateway REST docs describe the protocol.

Runs against the test session's gateway process (`flink_cluster`), plus one gateway started with a short idle
timeout. Shapes asserted here are Flink 2.2's (FetchResultsResponseBodySerializer, ResultInfoSerializer,
LogicalTypeJsonSerializer, AbstractHandler's error bodies), see /docs in the closing note of issue 8.
"""

from __future__ import annotations

import subprocess
import sys
import time
from decimal import Decimal

import httpx
import pytest
from helpers.env import free_port

from flinklab.flink.rest import FlinkRest
from flinklab.settings import Settings
from flinklab.sqlclient.printer import reason_from_server

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def http(flink_cluster: Settings):
    with httpx.Client(base_url=flink_cluster.gateway_url, timeout=120) as client:
        yield client


def open_session(http: httpx.Client, properties: dict[str, str] | None = None, version: str = "v3") -> str:
    response = http.post(f"/{version}/sessions", json={"properties": properties or {}})
    assert response.status_code == 200, response.text
    return response.json()["sessionHandle"]


def execute(http: httpx.Client, session: str, statement: str, version: str = "v3") -> str:
    response = http.post(f"/{version}/sessions/{session}/statements", json={"statement": statement})
    assert response.status_code == 200, response.text
    return response.json()["operationHandle"]


def fetch_all(http: httpx.Client, session: str, operation: str, row_format: str = "JSON", version: str = "v3"):
    """Every response body up to EOS, following nextResultUri as a client does."""
    uri = f"/{version}/sessions/{session}/operations/{operation}/result/0?rowFormat={row_format}"
    bodies = []
    deadline = time.monotonic() + 300
    while uri is not None:
        assert time.monotonic() < deadline, bodies[-3:]
        response = http.get(uri)
        assert response.status_code == 200, response.text
        body = response.json()
        bodies.append(body)
        uri = body.get("nextResultUri")
    return bodies


def test_info_and_versions_on_every_prefix(http: httpx.Client) -> None:
    for prefix in ("", "/v1", "/v2", "/v3", "/v4"):
        assert http.get(f"{prefix}/info").json() == {"productName": "Apache Flink", "version": "2.2.1"}
    assert http.get("/api_versions").json() == {"versions": ["V1", "V2", "V3", "V4"]}
    missing = http.get("/v3/nope")
    assert missing.status_code == 404 and missing.json() == {"errors": ["Not found: /v3/nope"]}


def test_round_trip_with_typed_rows_in_both_formats(http: httpx.Client) -> None:
    session = open_session(http, {"execution.runtime-mode": "batch", "pipeline.name": "round-trip"})
    config = http.get(f"/v3/sessions/{session}").json()["properties"]
    assert config["execution.runtime-mode"] == "batch" and config["pipeline.name"] == "round-trip"
    query = (
        "SELECT * FROM (VALUES (1, CAST(12.30 AS DECIMAL(10, 2)), TIMESTAMP '2024-01-01 10:00:00.120', "
        "CAST('x' AS STRING), TRUE, CAST(NULL AS INT))) AS t(i, d, ts, s, b, n)"
    )
    texts = {}
    for row_format in ("JSON", "PLAIN_TEXT"):
        operation = execute(http, session, query)
        bodies = fetch_all(http, session, operation, row_format)
        for body in bodies:
            if body["resultType"] == "NOT_READY":
                assert set(body) == {"resultType", "nextResultUri"}
                assert body["nextResultUri"].endswith(f"/result/0?rowFormat={row_format}")
        payload = [b for b in bodies if b["resultType"] == "PAYLOAD"]
        eos = bodies[-1]
        assert eos["resultType"] == "EOS" and "nextResultUri" not in eos and eos["results"]["data"] == []
        assert all(b["isQueryResult"] and b["resultKind"] == "SUCCESS_WITH_CONTENT" for b in payload)
        assert len(payload[0]["jobID"]) == 32
        columns = payload[0]["results"]["columns"]
        assert [c["name"] for c in columns] == ["i", "d", "ts", "s", "b", "n"]
        assert columns[1]["logicalType"] == {"type": "DECIMAL", "nullable": False, "precision": 10, "scale": 2}
        assert columns[2]["logicalType"] == {"type": "TIMESTAMP_WITHOUT_TIME_ZONE", "nullable": False,
                                             "precision": 3}
        assert columns[3]["logicalType"] == {"type": "VARCHAR", "nullable": False, "length": 2147483647}
        assert all(c["comment"] is None for c in columns)
        rows = [r for b in payload for r in b["results"]["data"]]
        assert [r["kind"] for r in rows] == ["INSERT"]
        texts[row_format] = rows[0]["fields"]
        http.delete(f"/v3/sessions/{session}/operations/{operation}/close")
    json_fields = texts["JSON"]
    assert json_fields[0] == 1 and Decimal(str(json_fields[1])) == Decimal("12.30")
    assert json_fields[2] == "2024-01-01T10:00:00.12" and json_fields[3:] == ["x", True, None]
    assert texts["PLAIN_TEXT"] == ["1", "12.30", "2024-01-01 10:00:00.120", "x", "TRUE", None]
    assert http.delete(f"/v3/sessions/{session}").json() == {"status": "CLOSED"}


def test_statement_results_by_kind(http: httpx.Client) -> None:
    session = open_session(http)
    ddl = execute(http, session, "CREATE TEMPORARY VIEW v AS SELECT * FROM (VALUES (1), (2)) AS t(a)")
    body = next(b for b in fetch_all(http, session, ddl) if b["resultType"] == "PAYLOAD")
    assert body["isQueryResult"] is False and "jobID" not in body and body["resultKind"] == "SUCCESS"
    assert body["results"]["data"] == [{"kind": "INSERT", "fields": ["OK"]}]
    listed = execute(http, session, "SET")
    body = next(b for b in fetch_all(http, session, listed) if b["resultType"] == "PAYLOAD")
    assert [c["name"] for c in body["results"]["columns"]] == ["key", "value"]
    keys = [r["fields"][0] for r in body["results"]["data"]]
    assert keys == [  # Flink's gateway lists its default context for a remote cluster, and what was SET
        "execution.attached", "execution.shutdown-on-attached-exit", "execution.state-recovery.claim-mode",
        "execution.state-recovery.ignore-unclaimed-state", "execution.target", "jobmanager.rpc.address",
        "rest.port",
    ]
    shown = execute(http, session, "SHOW TABLES")
    body = next(b for b in fetch_all(http, session, shown) if b["resultType"] == "PAYLOAD")
    assert body["resultKind"] == "SUCCESS_WITH_CONTENT" and body["results"]["data"][0]["fields"] == ["v"]


def test_a_failing_statement_fails_at_fetch_with_flinks_error_body(http: httpx.Client) -> None:
    session = open_session(http)
    operation = execute(http, session, "SELECT * FROM nope")  # accepted: the error comes with the result
    deadline = time.monotonic() + 120
    while True:
        response = http.get(f"/v3/sessions/{session}/operations/{operation}/result/0?rowFormat=JSON")
        if response.status_code != 200 or time.monotonic() > deadline:
            break
    assert response.status_code == 500
    errors = response.json()["errors"]
    assert errors[0] == "Internal server error." and errors[1].startswith("<Exception on server side:\n")
    assert errors[1].endswith("End of exception on server side>")
    # Flink's SQL client prints the last `Caused by:` up to its first frame: the planner's own reason
    reason = reason_from_server("[" + ", ".join(errors) + "]")  # Java List.toString, as the client sees it
    assert reason == "org.apache.calcite.sql.validate.SqlValidatorException: Object 'nope' not found"
    assert http.get(f"/v3/sessions/{session}/operations/{operation}/status").json() == {"status": "ERROR"}
    gone = http.get(f"/v3/sessions/{'0' * 8}-0000-0000-0000-{'0' * 12}")
    assert gone.status_code == 500 and "does not exist" in str(gone.json()["errors"])


def test_configure_session_and_completion_from_v2_on(http: httpx.Client) -> None:
    session = open_session(http)
    statement = {"statement": "CREATE TEMPORARY VIEW c AS SELECT 1 AS x"}
    assert http.post(f"/v1/sessions/{session}/configure-session", json=statement).status_code == 404
    assert http.post(f"/v2/sessions/{session}/configure-session", json=statement).json() == {}
    rejected = http.post(f"/v2/sessions/{session}/configure-session", json={"statement": "SELECT 1"})
    assert rejected.status_code == 500 and "Unsupported statement for configuring session" in rejected.text
    hints = http.request("GET", f"/v3/sessions/{session}/complete-statement",
                         json={"statement": "SELECT * FR", "position": 11}).json()
    assert "FROM" in hints["candidates"]
    assert http.post(f"/v1/sessions/{session}/heartbeat").json() == {}


def test_sessions_are_isolated(http: httpx.Client) -> None:
    a, b = open_session(http), open_session(http)
    fetch_all(http, a, execute(http, a, "CREATE TEMPORARY VIEW only_in_a AS SELECT 1 AS x"))
    fetch_all(http, a, execute(http, a, "SET 'pipeline.name' = 'mine'"))
    shown = fetch_all(http, b, execute(http, b, "SHOW TABLES"))
    assert all(r["fields"] != ["only_in_a"] for body in shown for r in body.get("results", {}).get("data", []))
    assert "pipeline.name" not in http.get(f"/v3/sessions/{b}").json()["properties"]
    assert http.get(f"/v3/sessions/{a}").json()["properties"]["pipeline.name"] == "mine"


def test_closing_a_streaming_query_cancels_its_job(http: httpx.Client, flink_cluster: Settings) -> None:
    session = open_session(http)
    fetch_all(http, session, execute(
        http, session, "CREATE TEMPORARY TABLE endless (id BIGINT) WITH ('connector' = 'datagen', "
                       "'rows-per-second' = '5')"))
    operation = execute(http, session, "SELECT id FROM endless")
    uri = f"/v3/sessions/{session}/operations/{operation}/result/0?rowFormat=PLAIN_TEXT"
    rows, job = 0, None
    deadline = time.monotonic() + 180
    while rows < 3 and time.monotonic() < deadline:
        body = http.get(uri).json()
        job = body.get("jobID", job)
        rows += len(body.get("results", {}).get("data", []))
        uri = body["nextResultUri"]
    assert rows >= 3 and job
    assert http.get(f"/v3/sessions/{session}/operations/{operation}/status").json() == {"status": "FINISHED"}
    assert http.delete(f"/v3/sessions/{session}/operations/{operation}/close").json() == {"status": "CLOSED"}
    rest = FlinkRest(flink_cluster.rest_url)
    deadline = time.monotonic() + 60
    while rest.job(job)["state"] != "CANCELED":
        assert time.monotonic() < deadline, rest.job(job)["state"]
        time.sleep(0.5)


def test_an_insert_outlives_its_session_and_a_query_does_not(http: httpx.Client, flink_cluster: Settings) -> None:
    """Flink's gateway: closing a session closes its operations; a query's job is cancelled with them, while an
    INSERT's job (submitted, detached) runs on (the shell's INSERT survives QUIT, as in Flink's client)."""
    session = open_session(http)
    for ddl in ("CREATE TEMPORARY TABLE endless (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '5')",
                "CREATE TEMPORARY TABLE sink (id BIGINT) WITH ('connector' = 'blackhole')"):
        fetch_all(http, session, execute(http, session, ddl))
    insert = execute(http, session, "INSERT INTO sink SELECT id FROM endless")
    inserted = None
    deadline = time.monotonic() + 180
    while inserted is None:  # the first page names the job (the rest waits for its end, which never comes)
        assert time.monotonic() < deadline
        inserted = http.get(f"/v3/sessions/{session}/operations/{insert}/result/0").json().get("jobID")
    query = execute(http, session, "SELECT id FROM endless")
    uri, queried = f"/v3/sessions/{session}/operations/{query}/result/0?rowFormat=JSON", None
    deadline = time.monotonic() + 180
    while queried is None:
        assert time.monotonic() < deadline
        body = http.get(uri).json()
        queried, uri = body.get("jobID"), body["nextResultUri"]
    rest = FlinkRest(flink_cluster.rest_url)
    deadline = time.monotonic() + 120
    while rest.job(inserted)["state"] != "RUNNING":
        assert time.monotonic() < deadline, rest.job(inserted)["state"]
        time.sleep(0.5)  # polling the cluster's job state
    assert http.delete(f"/v3/sessions/{session}").status_code == 200
    try:
        deadline = time.monotonic() + 60
        while rest.job(queried)["state"] != "CANCELED":
            assert time.monotonic() < deadline, rest.job(queried)["state"]
            time.sleep(0.5)
        causes = [line for entry in rest.job_exceptions(inserted)["exceptionHistory"]["entries"]
                  for line in entry["stacktrace"].splitlines() if "Caused by" in line][:6]
        assert rest.job(inserted)["state"] == "RUNNING", causes
    finally:
        httpx.patch(f"{flink_cluster.rest_url}/jobs/{inserted}?mode=cancel", timeout=10.0)
        deadline = time.monotonic() + 60
        while rest.job(inserted)["state"] != "CANCELED" and time.monotonic() < deadline:
            time.sleep(0.5)


def test_the_status_long_poll_answers_at_the_inserts_end(http: httpx.Client) -> None:
    """`status?wait=S` (flinklab's long-poll; Flink's clients never send it) is held while the INSERT's job runs and
    answers FINISHED once it ended, well before S; without `wait` the status answers at once; a bad `wait` is 400."""
    session = open_session(http)
    for ddl in ("CREATE TEMPORARY TABLE few (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3')",
                "CREATE TEMPORARY TABLE sink (id BIGINT) WITH ('connector' = 'blackhole')"):
        fetch_all(http, session, execute(http, session, ddl))
    insert = execute(http, session, "INSERT INTO sink SELECT id FROM few")
    status = f"/v3/sessions/{session}/operations/{insert}/status"
    assert http.get(status).json()["status"] in ("PENDING", "RUNNING")  # the job takes longer than an answer
    started = time.monotonic()
    answered = http.get(status, params={"wait": "100"}).json()["status"]  # capped at 30 s on the gateway
    assert answered == "FINISHED" and time.monotonic() - started < 30
    bad = http.get(status, params={"wait": "soon"})
    assert bad.status_code == 400 and "wait" in bad.json()["errors"][0]
    assert http.delete(f"/v3/sessions/{session}").status_code == 200


def test_idle_sessions_expire(flink_cluster: Settings) -> None:
    """A gateway with a 2 s idle timeout forgets a session nobody touches (Flink's session expiry)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "flinklab.environment.serve_gateway", "--port", str(port),
         "--rest-url", flink_cluster.rest_url,
         "--state-dir", str(flink_cluster.state_dir), "--idle-timeout", "2", "--check-interval", "0.5"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            deadline = time.monotonic() + 300
            while True:
                try:
                    if http.get("/v1/info").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.5)
            kept, idle = open_session(http), open_session(http)
            for _ in range(8):  # 4 s: `kept` is touched by its heartbeats, `idle` by nothing
                assert http.post(f"/v3/sessions/{kept}/heartbeat").status_code == 200
                time.sleep(0.5)
            assert http.get(f"/v3/sessions/{kept}").status_code == 200
            gone = http.get(f"/v3/sessions/{idle}")
            assert gone.status_code == 500 and f"Session '{idle}' does not exist." in gone.text
    finally:
        proc.terminate()
        proc.wait(30)
