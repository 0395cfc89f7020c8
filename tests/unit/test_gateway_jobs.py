"""The gateway's own job statements (flinklab/gateway/jobs.py) and texts, without a JVM: TIMESTAMP_LTZ in both row
formats, where a savepoint goes, JobID's check and message (Flink 2.2.1's JobID.fromHexString), and error chains
without made-up frames."""

from __future__ import annotations

from pathlib import Path

import pytest

from flinklab.gateway.jobs import (
    ClusterActionError,
    JobRows,
    JobStatement,
    run_job_statement,
    savepoint_dir,
)
from flinklab.sqlclient.printer import reason_from_server
from flinklab.sqlclient.protocol import GatewayError

# 2023-11-14 22:13:20.123 UTC, whose two renderings Flink 2.2.1's gateway gave for TO_TIMESTAMP_LTZ(1700000000123, 3)
# (JSON: flink-json's ISO-8601 in UTC; PLAIN_TEXT: in the session's time zone)
MILLIS = 1700000000123


def test_job_rows_render_start_time_as_flinks_two_row_formats() -> None:
    job = {"jid": "a" * 32, "name": "insert-into_x", "state": "RUNNING", "start-time": MILLIS}
    rows = JobRows([job], "Asia/Tokyo")
    page = rows.take(10)
    assert page.count == 1 and rows.finished()
    assert page.json_rows == ('{"kind": "INSERT", "fields": ["' + "a" * 32 + '", "insert-into_x", "RUNNING", '
                              '"2023-11-14T22:13:20.123Z"]}')
    assert '"2023-11-15 07:13:20.123"' in page.text_rows  # UTC+9
    assert [c["name"] for c in rows.columns] == ["job id", "job name", "status", "start time"]


def test_savepoints_go_where_the_session_says_else_into_the_state_dir(tmp_path: Path) -> None:
    assert savepoint_dir({}, tmp_path) == str(tmp_path.resolve() / "savepoints")
    assert savepoint_dir({"state.savepoints.dir": "file:///sp"}, tmp_path) == "file:///sp"
    assert savepoint_dir({"execution.checkpointing.savepoint-dir": "file:///new", "state.savepoints.dir": "x"},
                         tmp_path) == "file:///new"
    assert savepoint_dir({}, None) is None  # then the cluster's own default, or its error


class NoCluster:
    """A ClusterJobs that must not be called: a malformed id is refused before any request."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the cluster was asked ({name})")


@pytest.mark.parametrize(("statement", "summary"), [
    (JobStatement("stop", "nope"), "Could not stop job nope  for operation op-1."),
    (JobStatement("stop", "nope", with_savepoint=True), "Could not stop job nope with savepoint for operation op-1."),
    (JobStatement("describe", "nope"), "Failed to get job nope in the cluster."),
])
def test_a_malformed_job_id_fails_with_flinks_texts(statement: JobStatement, summary: str) -> None:
    with pytest.raises(ClusterActionError) as raised:
        run_job_statement(statement, NoCluster(), {}, "op-1", None)  # type: ignore[arg-type]
    text = raised.value.text()
    assert text.startswith(f"org.apache.flink.table.gateway.service.utils.SqlExecutionException: {summary}\n")
    assert reason_from_server(text) == ('java.lang.IllegalArgumentException: Cannot parse JobID from "nope". The '
                                        'expected format is [0-9a-fA-F]{32}, e.g. fd72014d4c864993a2e5a9287b4a9c5d.')
    assert "\tat " not in text  # no frame is made up


def test_verbose_text_is_the_rest_client_exception_flinks_client_holds() -> None:
    error = GatewayError(500, ["Internal server error.", "<Exception on server side:\na.B: c\nEnd of exception on "
                                                         "server side>"])
    assert error.client_side == ("org.apache.flink.runtime.rest.util.RestClientException: [Internal server error., "
                                 "<Exception on server side:\na.B: c\nEnd of exception on server side>]")
    assert error.server_side == "a.B: c"
