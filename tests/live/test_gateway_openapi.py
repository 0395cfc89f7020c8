"""flinklab's SQL gateway through an OpenAPI-generated client of Flink's SQL Gateway REST API.

The client is PyPI's `flink-sql-gateway-api` (module `flink_gateway_api`): openapi-python-client's output for Flink's
`rest_v3_sql_gateway.yml` (its models have the spec's fields, names and enums one to one; its author typed the
session and operation handles in paths as strings where the spec has objects). Nobody here wrote it, and it parses
every answer into the spec's models, so it checks our answers against Flink's spec as a generated client sees them.
It is installed rather than generated at test time because Flink's spec file is not in this repository;
openapi-python-client 0.29.1 run on Flink's v4 spec gives the same models (compared outside the repository).

Where Flink's spec does not describe Flink's own wire format, the generated models keep the real keys in
`additional_properties`. These are gaps of the spec (generated from Java classes that custom serializers write
differently), not ours: Flink's gateway sends the same keys, which py-flink-sql-gateway, written against it, reads.

- FetchResultsResponseBody: the spec says `queryResult`; Flink sends `isQueryResult`.
- ResultInfo: the spec says `columnInfos` (and `resultSchema`, `fieldGetters`); Flink sends `columns`, `rowFormat`,
  `data` (its ResultInfo serializer).
- RowData: the spec says `arity`, `rowKind`; Flink sends `kind` and `fields`.
- LogicalType: the spec says `typeRoot`, `children`; Flink sends `type`, `nullable` and the type's own fields
  (`length`, `precision`, ...).
- Errors: the spec documents 200 only; Flink answers a failure with its REST error body `{"errors": [...]}`
  (500 for a failed statement), which a generated client returns unparsed (`parsed is None`).
"""

from __future__ import annotations

import json
import math
import re
import time

import httpx
import pytest
from flink_gateway_api import AuthenticatedClient, Client
from flink_gateway_api.api.default import (
    cancel_operation,
    close_operation,
    close_session,
    execute_statement,
    fetch_results,
    get_api_version,
    get_info,
    get_operation_status,
    get_session_config,
    open_session,
)
from flink_gateway_api.models import (
    CloseSessionResponseBody,
    ColumnInfo,
    ExecuteStatementRequestBody,
    FetchResultsResponseBody,
    GetApiVersionResponseBody,
    GetInfoResponseBody,
    GetSessionConfigResponseBody,
    OpenSessionRequestBody,
    OpenSessionRequestBodyProperties,
    OperationStatusResponseBody,
    ResultKind,
    ResultType,
    RowFormat,
    RowKind,
)
from flink_gateway_api.types import UNSET

from flinklab.access import read_token
from flinklab.gateway.app import PAGE_ROWS
from flinklab.version import FLINK_VERSION

pytestmark = pytest.mark.live

#: The API version the client was generated for (its spec's paths carry no version: the base URL does).
API_VERSION = "v3"
BATCH = {"execution.runtime-mode": "batch"}
STREAMING = {"execution.runtime-mode": "streaming"}
# Guards against a hung gateway, not a speed check: a healthy run takes seconds.
HANG_GUARD_S = 180.0


def _client(flink_cluster) -> AuthenticatedClient:
    """The one place the tests make their client: with the gateway's token, which the generated client sends as
    `Authorization: Bearer <token>` (tests/test_gateway_security_live.py runs it as another Unix user too)."""
    return AuthenticatedClient(base_url=f"{flink_cluster.gateway_url}/{API_VERSION}",
                               token=read_token(flink_cluster.state_dir), timeout=httpx.Timeout(60.0))


@pytest.fixture(scope="module")
def client(flink_cluster):
    with _client(flink_cluster) as c:
        yield c


def _open(client: Client, properties: dict[str, str], name: str | None = None) -> str:
    body = OpenSessionRequestBody(properties=OpenSessionRequestBodyProperties.from_dict(properties))
    if name is not None:
        body.session_name = name
    opened = open_session.sync(client=client, body=body)
    assert opened is not None and opened.additional_properties == {}
    assert isinstance(opened.session_handle, str)
    return opened.session_handle


def _execute(client: Client, session: str, sql: str) -> str:
    answer = execute_statement.sync(session, client=client, body=ExecuteStatementRequestBody(statement=sql))
    assert answer is not None and answer.additional_properties == {}
    assert isinstance(answer.operation_handle, str)
    return answer.operation_handle


def _error_body(response) -> list[str]:
    """The `errors` of Flink's REST error body, which the spec does not model (so `parsed` is None)."""
    assert response.parsed is None
    body = json.loads(response.content)
    assert set(body) == {"errors"}, body
    assert all(isinstance(e, str) for e in body["errors"])
    return body["errors"]


_NEXT = re.compile(rf"^/{API_VERSION}/sessions/(?P<s>[^/]+)/operations/(?P<o>[^/]+)/result/(?P<token>\d+)"
                   r"\?rowFormat=JSON$")


def _pages(client: Client, session: str, operation: str) -> list[FetchResultsResponseBody]:
    """Every page from token 0 to EOS, each next token read from the page's `nextResultUri`."""
    pages: list[FetchResultsResponseBody] = []
    token = 0
    deadline = time.monotonic() + HANG_GUARD_S
    while time.monotonic() < deadline:
        response = fetch_results.sync_detailed(session, operation, token, client=client, row_format=RowFormat.JSON)
        assert response.status_code == 200, response.content
        page = response.parsed
        assert isinstance(page, FetchResultsResponseBody)
        pages.append(page)
        if page.result_type == ResultType.EOS:
            assert page.next_result_uri is UNSET
            return pages
        match = _NEXT.match(page.next_result_uri)
        assert match and (match["s"], match["o"]) == (session, operation), page.next_result_uri
        following = int(match["token"])
        # Flink's ResultFetcher: NOT_READY asks for the same token again, a PAYLOAD for the next one
        assert following == (token if page.result_type == ResultType.NOT_READY else token + 1), page
        if page.result_type == ResultType.NOT_READY or not page.results.data:
            time.sleep(0.1)
        token = following
    pytest.fail(f"no EOS after {HANG_GUARD_S}s; {len(pages)} pages so far")


def _rows(pages: list[FetchResultsResponseBody]) -> list[tuple[RowKind, list]]:
    """(kind, fields) of every row: the spec's RowData model has neither, so they come from its extra keys, and the
    kind must be one of the spec's RowKind values."""
    rows = []
    for page in pages:
        if page.result_type == ResultType.NOT_READY:
            continue
        for row in page.results.data:
            assert row.arity is UNSET and row.row_kind is UNSET
            assert set(row.additional_properties) == {"kind", "fields"}
            rows.append((RowKind(row["kind"]), row["fields"]))
    return rows


def _pages_until_payload(client: Client, session: str, operation: str) -> FetchResultsResponseBody:
    deadline = time.monotonic() + HANG_GUARD_S
    while time.monotonic() < deadline:
        page = fetch_results.sync(session, operation, 0, client=client, row_format=RowFormat.JSON)
        assert isinstance(page, FetchResultsResponseBody)
        if page.result_type != ResultType.NOT_READY:
            return page
        time.sleep(0.1)
    pytest.fail(f"no result for {operation} after {HANG_GUARD_S}s")


def _job_state(flink_cluster, job: str) -> str:
    """The job's state on the cluster (Flink's REST API, not the gateway)."""
    return httpx.get(f"{flink_cluster.rest_url}/jobs/{job}", timeout=10.0).json()["state"]


def test_info_and_api_versions(client: Client) -> None:
    info = get_info.sync(client=client)
    assert isinstance(info, GetInfoResponseBody)
    assert (info.product_name, info.version) == ("Apache Flink", FLINK_VERSION)
    assert info.additional_properties == {}  # exactly the spec's fields
    versions = get_api_version.sync(client=client)
    assert isinstance(versions, GetApiVersionResponseBody)
    assert versions.versions == ["V1", "V2", "V3", "V4"]
    assert versions.additional_properties == {}


def test_session_opened_with_properties_keeps_them(client: Client) -> None:
    session = _open(client, {**BATCH, "pipeline.name": "oapi-session", "table.local-time-zone": "UTC"}, "oapi")
    try:
        config = get_session_config.sync(session, client=client)
        assert isinstance(config, GetSessionConfigResponseBody)
        properties = config.properties.additional_properties
        assert properties["execution.runtime-mode"] == "batch"
        assert properties["pipeline.name"] == "oapi-session"
        assert properties["table.local-time-zone"] == "UTC"
        assert all(isinstance(v, str) for v in properties.values())  # the spec: a map of strings
    finally:
        close_session.sync(session, client=client)


def test_batch_query_pages_by_token_until_eos_with_typed_columns(client: Client) -> None:
    rows_wanted = PAGE_ROWS + 500  # more than one page holds
    session = _open(client, BATCH)
    try:
        ddl = _execute(client, session, (
            "CREATE TEMPORARY TABLE gen (id INT NOT NULL) WITH ("
            f" 'connector' = 'datagen', 'number-of-rows' = '{rows_wanted}',"
            f" 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows_wanted}')"
        ))
        ddl_pages = _pages(client, session, ddl)
        last = ddl_pages[-1]
        assert last.result_kind == ResultKind.SUCCESS
        assert last.additional_properties == {"isQueryResult": False}
        assert _rows(ddl_pages) == [(RowKind.INSERT, ["OK"])]

        query = _execute(client, session, "SELECT id, CAST(id AS BIGINT) * 3 AS triple, "
                                          "CAST(CONCAT('n', CAST(id AS STRING)) AS VARCHAR(12)) AS label, "
                                          "CAST(id AS DECIMAL(10, 2)) AS d FROM gen")
        pages = _pages(client, session, query)
    finally:
        close_session.sync(session, client=client)

    payloads = [page for page in pages if page.result_type != ResultType.NOT_READY]
    for page in payloads:
        assert page.result_kind == ResultKind.SUCCESS_WITH_CONTENT
        assert page.query_result is UNSET and page.additional_properties == {"isQueryResult": True}
        assert re.fullmatch(r"[0-9a-f]{32}", page.job_id)  # the spec's JobID pattern
        assert page.results.row_format == RowFormat.JSON
        assert page.results.column_infos == []  # not sent (this generator makes an absent list empty)
        assert set(page.results.additional_properties) == {"columns"}
    assert len({page.job_id for page in payloads}) == 1
    assert sum(1 for page in payloads if page.results.data) >= math.ceil(rows_wanted / PAGE_ROWS)
    assert all(len(page.results.data) <= PAGE_ROWS for page in payloads)

    columns = [ColumnInfo.from_dict(c) for c in payloads[0].results["columns"]]
    assert [c.name for c in columns] == ["id", "triple", "label", "d"]
    assert [c.logical_type.nullable for c in columns] == [False, False, False, False]
    assert [c.logical_type.type_root for c in columns] == [UNSET] * 4  # Flink writes "type", not "typeRoot"
    assert [c.logical_type.additional_properties for c in columns] == [
        {"type": "INTEGER"},
        {"type": "BIGINT"},
        {"type": "VARCHAR", "length": 12},
        {"type": "DECIMAL", "precision": 10, "scale": 2},
    ]

    rows = _rows(pages)
    assert {kind for kind, _ in rows} == {RowKind.INSERT}
    assert sorted(fields[0] for _, fields in rows) == list(range(1, rows_wanted + 1))
    for _, (i, triple, label, d) in rows:
        assert (triple, label, d) == (3 * i, f"n{i}", i), (i, triple, label, d)


def test_streaming_changelog_has_the_specs_row_kinds(client: Client) -> None:
    session = _open(client, STREAMING)
    try:
        operation = _execute(client, session, (
            "SELECT k, COUNT(*) AS c, SUM(v) AS total "
            "FROM (VALUES ('a', 1), ('b', 2), ('a', 3), ('a', 4), ('b', 5)) AS t(k, v) GROUP BY k"))
        events = _rows(_pages(client, session, operation))
    finally:
        close_session.sync(session, client=client)
    kinds = {kind for kind, _ in events}
    assert {RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER} <= kinds, events  # a changelog, not a final snapshot
    state: dict[str, tuple[int, int]] = {}
    for kind, (k, c, total) in events:
        if kind in (RowKind.INSERT, RowKind.UPDATE_AFTER):
            state[k] = (c, total)
        else:
            assert state.pop(k) == (c, total), (kind, k, c, total)
    assert state == {"a": (3, 8), "b": (2, 7)}


def test_failing_statement_answers_flinks_error_body(client: Client) -> None:
    session = _open(client, BATCH)
    try:
        operation = _execute(client, session, "SELECT * FROM nope")  # accepted: the failure comes with the result
        deadline = time.monotonic() + HANG_GUARD_S
        while True:
            response = fetch_results.sync_detailed(session, operation, 0, client=client, row_format=RowFormat.JSON)
            if response.status_code != 200 or response.parsed.result_type != ResultType.NOT_READY:
                break
            assert time.monotonic() < deadline, "the failing statement never failed"
            time.sleep(0.1)
        assert response.status_code == 500
        errors = _error_body(response)
        assert errors[0] == "Internal server error."
        assert "Object 'nope' not found" in errors[1]
        status = get_operation_status.sync(session, operation, client=client)
        assert isinstance(status, OperationStatusResponseBody) and status.status == "ERROR"
    finally:
        close_session.sync(session, client=client)


def test_cancel_a_running_insert_cancels_its_job(client: Client, flink_cluster) -> None:
    session = _open(client, STREAMING)
    job = None
    try:
        for ddl in ("CREATE TEMPORARY TABLE endless (x INT) WITH ('connector' = 'datagen', 'rows-per-second' = '5')",
                    "CREATE TEMPORARY TABLE sink (x INT) WITH ('connector' = 'blackhole')"):
            _pages(client, session, _execute(client, session, ddl))
        insert = _execute(client, session, "INSERT INTO sink SELECT x FROM endless")
        first = _pages_until_payload(client, session, insert)
        job = first.job_id
        assert re.fullmatch(r"[0-9a-f]{32}", job)
        status = get_operation_status.sync(session, insert, client=client)
        assert status.status == "RUNNING"  # flinklab: an INSERT's operation runs as long as its job
        cancelled = cancel_operation.sync(session, insert, client=client)  # POST, as Flink's spec has it
        assert isinstance(cancelled, OperationStatusResponseBody) and cancelled.status == "CANCELED"
        assert get_operation_status.sync(session, insert, client=client).status == "CANCELED"
        assert _job_state(flink_cluster, job) in ("CANCELLING", "CANCELED")
    finally:
        close_session.sync(session, client=client)
        if job is not None and _job_state(flink_cluster, job) == "RUNNING":  # never leave a job on the shared cluster
            httpx.patch(f"{flink_cluster.rest_url}/jobs/{job}?mode=cancel", timeout=10.0)


def test_close_operation_then_session(client: Client) -> None:
    session = _open(client, BATCH)
    operation = _execute(client, session, "SELECT 41 + 1 AS answer")
    assert [fields for _, fields in _rows(_pages(client, session, operation))] == [[42]]

    closed = close_operation.sync(session, operation, client=client)
    assert isinstance(closed, OperationStatusResponseBody) and closed.status == "CLOSED"
    gone = get_operation_status.sync_detailed(session, operation, client=client)
    assert gone.status_code == 500
    assert any(f"Can not find the submitted operation in the OperationManager with the {operation}" in e
               for e in _error_body(gone))

    ended = close_session.sync(session, client=client)
    assert isinstance(ended, CloseSessionResponseBody) and ended.status == "CLOSED"
    assert ended.additional_properties == {}
    missing = get_session_config.sync_detailed(session, client=client)
    assert missing.status_code == 500
    assert any(f"Session '{session}' does not exist." in e for e in _error_body(missing))
