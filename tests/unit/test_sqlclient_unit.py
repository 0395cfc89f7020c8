"""Pure parts of the thin client and the gateway's error texts (no cluster, no JVM)."""

from __future__ import annotations

import pytest

from flinklab.cli.sql import endpoint_url
from flinklab.errors import UsageError
from flinklab.gateway.errors import wrapped
from flinklab.sqlclient.kinds import guess_kind
from flinklab.sqlclient.printer import echo, reason_from_server
from flinklab.sqlclient.protocol import GatewayError

SERVER_TEXT = (
    "<Exception on server side:\n"
    "org.apache.flink.table.gateway.api.utils.SqlGatewayException: Failed to fetchResults.\n"
    "\tat org.apache.flink.table.gateway.rest.handler.statement.FetchResultsHandler.handleRequest(X.java:1)\n"
    "Caused by: org.apache.flink.table.api.ValidationException: SQL validation failed. Object 'x' not found\n"
    "\tat org.apache.flink.table.planner.calcite.FlinkPlannerImpl.validate(Y.java:2)\n"
    "Caused by: org.apache.calcite.sql.validate.SqlValidatorException: Object 'x' not found\n"
    "\tat jdk.internal.reflect.X(Native Method)\n"
    "\t... 25 more\n"
    "End of exception on server side>"
)


def test_reason_is_the_last_cause_up_to_its_first_frame_as_flinks_client() -> None:
    as_client_sees_it = "[Internal server error., " + SERVER_TEXT + "]"
    assert reason_from_server(as_client_sees_it) == (
        "org.apache.calcite.sql.validate.SqlValidatorException: Object 'x' not found"
    )
    multi_line = "Caused by: a.B: first line\nsecond line\n\tat c.D(E.java:1)"
    assert reason_from_server(multi_line) == "a.B: first line\nsecond line"


def test_wrapped_chains_causes_without_made_up_frames() -> None:
    """The gateway's own layers carry no frames (none ran in a JVM); the cause's real frames are kept."""
    text = wrapped("x.Root: the reason", "a.Outer: outer", "b.Inner: inner")
    assert text == "a.Outer: outer\nCaused by: b.Inner: inner\nCaused by: x.Root: the reason"
    assert "flinklab" not in text
    assert reason_from_server(text) == "x.Root: the reason"
    kept = wrapped("x.Root: r\n\tat x.Y(Z.java:1)", "a.Outer: o")
    assert kept.endswith("Caused by: x.Root: r\n\tat x.Y(Z.java:1)")


def test_gateway_error_unwraps_the_server_side_exception() -> None:
    error = GatewayError(500, ["Internal server error.", SERVER_TEXT])
    assert error.server_side.startswith("org.apache.flink.table.gateway.api.utils.SqlGatewayException")
    assert error.server_side.endswith("\t... 25 more")
    assert GatewayError(404, ["Not found: /v3/x"]).server_side == "Not found: /v3/x"


@pytest.mark.parametrize(
    ("statement", "kind"),
    [
        ("SELECT 1", "query"),
        ("  with x AS (SELECT 1) SELECT * FROM x", "query"),
        ("INSERT INTO t SELECT 1", "insert"),
        ("SET 'a' = 'b'", "set"),
        ("SET", "set"),
        ("RESET", "reset"),
        ("EXECUTE STATEMENT SET BEGIN INSERT INTO t VALUES (1); END", "statement_set"),
        ("COMPILE PLAN 'f' FOR INSERT INTO t SELECT 1", "compile_plan"),
        ("CREATE TABLE t (a INT)", "ddl"),
        ("DESC t", "describe"),
        ("SELECTED", "other"),
        ("help", "help"),
        (" Quit ", "quit"),
        ("EXIT", "quit"),
    ],
)
def test_guess_kind_from_leading_words(statement: str, kind: str) -> None:
    assert guess_kind(statement) == kind


@pytest.mark.parametrize(
    ("endpoint", "url"),
    [
        ("127.0.0.1:8083", "http://127.0.0.1:8083"),
        ("localhost:18083", "http://localhost:18083"),
        ("http://10.0.0.5:8083/", "http://10.0.0.5:8083"),
    ],
)
def test_endpoint_urls(endpoint: str, url: str) -> None:
    assert endpoint_url(endpoint) == url


@pytest.mark.parametrize("endpoint", ["127.0.0.1", "host:port", ":8083", "ftp://h:1", "h:99999"])
def test_bad_endpoints_are_usage_errors_naming_them(endpoint: str) -> None:
    with pytest.raises(UsageError) as info:
        endpoint_url(endpoint)
    assert repr(endpoint) in info.value.message


def test_echo_prompts_each_line() -> None:
    assert echo("SELECT 1\nFROM t") == "Flink SQL> SELECT 1\n> FROM t;"
