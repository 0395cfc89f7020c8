"""A third-party DB-API driver (PyPI `py-flink-sql-gateway`, module `flink_gateway`) against flinklab's SQL Gateway.

Nobody here wrote this client: it is the yardstick of the protocol (issue 8). It runs against the test session's
gateway (`flink_cluster`). What the driver does (read from py_flink_sql_gateway 0.1.6):
- `connect(url, properties=..., api_version="v3")` -> POST /v3/sessions {"properties": {...}}
- `cursor.execute(sql)` -> POST /v3/sessions/S/statements {"statement": sql}, then GET .../result/0?rowFormat=json every
  1 s while NOT_READY, then the tokens taken from `nextResultUri` (no rowFormat query after the first fetch).
  Non-query results (resultKind SUCCESS and not isQueryResult) -> DELETE .../operations/O/close right away.
- an HTTP status other than 200 -> `FlinkSqlGatewayError("<action> failed: <code> <reason>: " + "; ".join(errors))`.
- The cursor drops the row kind. The changelog test therefore uses the driver's low-level `FlinkSqlGatewayClient`, which
  exposes `RowData.kind`.
"""

from __future__ import annotations

import datetime
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import flink_gateway
import pytest
from flink_gateway import FlinkSqlGatewayClient, FlinkSqlGatewayError, connect
from flink_gateway.models import ExecuteStatementRequest, ResultType

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def gateway_url(flink_cluster) -> str:
    return flink_cluster.gateway_url

BATCH = {"execution.runtime-mode": "batch"}
STREAMING = {"execution.runtime-mode": "streaming"}
# Guards against a hung gateway, not a speed check: a healthy run takes seconds.
HANG_GUARD_S = 180.0


def test_info_and_api_versions(gateway_url: str) -> None:
    with FlinkSqlGatewayClient(gateway_url) as client:
        info = client.get_info()
        assert info.product_name == "Apache Flink"
        assert info.version == "2.2.1"
        assert client.get_api_versions() == ["V1", "V2", "V3", "V4"]


def test_ddl_then_query_on_datagen_and_view(gateway_url: str) -> None:
    with connect(gateway_url, properties=BATCH) as conn, conn.cursor() as cur:
        cur.execute(
            "CREATE TEMPORARY TABLE gen (id INT) WITH ("
            " 'connector' = 'datagen', 'number-of-rows' = '5',"
            " 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5')"
        )
        cur.execute("CREATE TEMPORARY VIEW words AS SELECT * FROM (VALUES (1, 'one'), (2, 'two')) AS t(id, word)")
        cur.execute("SELECT SUM(id) AS total, COUNT(*) AS c FROM gen")
        assert [d[0] for d in cur.description] == ["total", "c"]
        assert cur.fetchall() == [(15, 5)]
        cur.execute("SELECT g.id, w.word FROM gen AS g JOIN words AS w ON g.id = w.id ORDER BY g.id")
        assert cur.fetchall() == [(1, "one"), (2, "two")]


TYPED_QUERY = """
SELECT * FROM (VALUES
  (1, CAST(9007199254740993 AS BIGINT), CAST(12.30 AS DECIMAL(10, 2)),
   CAST('2024-01-01 10:00:00.120' AS TIMESTAMP(3)), CAST('flink' AS STRING), TRUE, CAST(NULL AS INT)),
  (2, CAST(-1 AS BIGINT), CAST(100.00 AS DECIMAL(10, 2)),
   CAST('2024-02-29 23:59:59.999' AS TIMESTAMP(3)), CAST('gateway' AS STRING), FALSE, CAST(NULL AS INT))
) AS t(i, b, d, ts, s, flag, n)
ORDER BY i
"""


def test_batch_query_returns_typed_python_values(gateway_url: str) -> None:
    with connect(gateway_url, properties=BATCH) as conn, conn.cursor() as cur:
        cur.execute(TYPED_QUERY)
        # (name, type_code, display_size, internal_size, precision, scale, null_ok), built from the
        # serialized logical types ({"type":"DECIMAL","nullable":false,"precision":10,"scale":2}, ...).
        assert cur.description == [
            ("i", "INTEGER", None, None, None, None, False),
            ("b", "BIGINT", None, None, None, None, False),
            ("d", "DECIMAL", None, None, 10, 2, False),
            ("ts", "TIMESTAMP", None, None, 3, None, False),
            ("s", "VARCHAR", None, None, None, None, False),
            ("flag", "BOOLEAN", None, None, None, None, False),
            ("n", "INTEGER", None, None, None, None, True),
        ]
        rows = cur.fetchall()
    assert rows == [
        (1, 9007199254740993, Decimal("12.30"), datetime.datetime(2024, 1, 1, 10, 0, 0, 120000), "flink", True, None),
        (2, -1, Decimal("100.00"), datetime.datetime(2024, 2, 29, 23, 59, 59, 999000), "gateway", False, None),
    ]
    # Exact types, not just equal values: a BIGINT beyond 2**53 must survive as an int, DECIMAL as Decimal.
    first = rows[0]
    assert [type(v) for v in first] == [int, int, Decimal, datetime.datetime, str, bool, type(None)]


def _changelog(client: FlinkSqlGatewayClient, session: str, sql: str) -> list[tuple[str, list]]:
    """Every (kind, fields) the gateway returns for `sql`, from token 0 up to EOS."""
    op = client.execute_statement(session, ExecuteStatementRequest(statement=sql))
    events: list[tuple[str, list]] = []
    token = "0"
    deadline = time.monotonic() + HANG_GUARD_S
    try:
        while time.monotonic() < deadline:
            resp = client.fetch_results(session, op, token, "JSON")
            if resp.result_type == ResultType.NOT_READY:
                time.sleep(0.1)
                continue
            events.extend((row.kind, row.fields) for row in resp.results.data)
            if resp.result_type == ResultType.EOS or not resp.next_result_uri:
                return events
            assert resp.is_query_result is True
            token = resp.next_token()
            if not resp.results.data:
                time.sleep(0.1)
        pytest.fail(f"no EOS for {sql!r} after {HANG_GUARD_S}s; events so far: {events}")
    finally:
        client.close_operation(session, op)


def test_streaming_group_by_changelog_folds_to_final_counts(gateway_url: str) -> None:
    sql = (
        "SELECT k, COUNT(*) AS c, SUM(v) AS total "
        "FROM (VALUES ('a', 1), ('b', 2), ('a', 3), ('a', 4), ('b', 5)) AS t(k, v) GROUP BY k"
    )
    with connect(gateway_url, properties=STREAMING) as conn:
        events = _changelog(conn.client, conn.session_handle, sql)
    kinds = {kind for kind, _ in events}
    assert kinds <= {"INSERT", "UPDATE_BEFORE", "UPDATE_AFTER", "DELETE"}
    assert {"UPDATE_BEFORE", "UPDATE_AFTER"} <= kinds, events  # a real changelog, not a final snapshot
    state: dict[str, tuple[int, int]] = {}
    for kind, (k, c, total) in events:
        if kind in ("INSERT", "UPDATE_AFTER"):
            state[k] = (c, total)
        else:
            assert state.pop(k) == (c, total), (kind, k, c, total)
    assert state == {"a": (3, 8), "b": (2, 7)}


def test_failing_statement_carries_flinks_reason_and_session_survives(gateway_url: str) -> None:
    with connect(gateway_url, properties=BATCH) as conn, conn.cursor() as cur:
        with pytest.raises(FlinkSqlGatewayError) as info:
            cur.execute("SELECT * FROM nope")
        assert isinstance(info.value, flink_gateway.DatabaseError)  # PEP 249 hierarchy
        message = str(info.value)
        assert "Object 'nope' not found" in message
        assert "500" in message  # Flink answers the fetch of a failed operation with HTTP 500
        cur.execute("SELECT 41 + 1")
        assert cur.fetchall() == [(42,)]


def test_two_sessions_at_once_are_isolated(gateway_url: str) -> None:
    with connect(gateway_url, properties=BATCH) as a, connect(gateway_url, properties=BATCH) as b:
        assert a.session_handle != b.session_handle
        with a.cursor() as cur:
            cur.execute("CREATE TEMPORARY VIEW v AS SELECT * FROM (VALUES (1), (2)) AS t(x)")
            cur.execute("CREATE TEMPORARY VIEW only_in_a AS SELECT 1 AS x")
            cur.execute("SET 'pipeline.name' = 'session-a'")
        with b.cursor() as cur:
            cur.execute("CREATE TEMPORARY VIEW v AS SELECT * FROM (VALUES (10), (20), (30)) AS t(x)")
            with pytest.raises(FlinkSqlGatewayError) as info:
                cur.execute("SELECT * FROM only_in_a")
            assert "Object 'only_in_a' not found" in str(info.value)

        assert a.client.get_session_config(a.session_handle).get("pipeline.name") == "session-a"
        assert b.client.get_session_config(b.session_handle).get("pipeline.name") != "session-a"

        def total(conn: flink_gateway.Connection) -> int:
            with conn.cursor() as cur:
                cur.execute("SELECT SUM(x) FROM v")
                return cur.fetchall()[0][0]

        with ThreadPoolExecutor(max_workers=2) as pool:  # both sessions run a query at the same time
            fa, fb = pool.submit(total, a), pool.submit(total, b)
            assert (fa.result(), fb.result()) == (3, 60)


def test_closed_session_is_gone(gateway_url: str) -> None:
    conn = connect(gateway_url)
    handle = conn.session_handle
    conn.close()
    with FlinkSqlGatewayClient(gateway_url) as client:
        with pytest.raises(FlinkSqlGatewayError) as info:
            client.get_session_config(handle)
    assert f"Session '{handle}' does not exist." in str(info.value)


def test_an_insert_answers_its_job_id_as_flinks_gateway(gateway_url: str, flink_cluster) -> None:
    """Flink's gateway answers an INSERT with one STRING column `job id` (OperationExecutor.fetchJobId), which
    drivers hand on as the statement's one row: the id of a job the cluster knows."""
    from flinklab.cluster.base import resolve_rest_url
    from flinklab.flink.rest import FlinkRest

    with connect(gateway_url, properties=BATCH) as conn, conn.cursor() as cur:
        cur.execute("CREATE TEMPORARY TABLE few (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3')")
        cur.execute("CREATE TEMPORARY TABLE sink (id INT) WITH ('connector' = 'blackhole')")
        cur.execute("INSERT INTO sink SELECT id FROM few")
        assert [d[0] for d in cur.description] == ["job id"]
        rows = cur.fetchall()
    assert len(rows) == 1 and len(rows[0]) == 1
    job = FlinkRest(resolve_rest_url(flink_cluster)).job(rows[0][0])
    assert job["jid"] == rows[0][0] and job["name"] == "insert-into_default_catalog.default_database.sink"
