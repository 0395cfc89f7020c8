"""The statements Flink's SQL gateway runs itself, outside `TableEnvironment.executeSql`, against the cluster:
`SHOW JOBS`, `DESCRIBE JOB '<id>'` and `STOP JOB '<id>' [WITH SAVEPOINT] [WITH DRAIN]`.

Flink's OperationExecutor (callShowJobsOperation, callDescribeJobOperation, callStopJobOperation) does these with a
ClusterClient; here the cluster's REST API does them (the same calls a RestClusterClient makes): `GET
/jobs/overview`, `PATCH /jobs/:id?mode=cancel`, `POST /jobs/:id/stop` and `GET /jobs/:id/savepoints/:trigger`.
Columns, texts and error messages are Flink's; an error's cause is the cluster's own REST answer.
"""

from __future__ import annotations

import http.client
import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flinklab.flink.rest import FlinkRest, RestUnavailable
from flinklab.flink.waiting import Wait
from flinklab.gateway.results import ResultSource, StaticRows, string_column

SQL_EXECUTION_EXCEPTION = "org.apache.flink.table.gateway.service.utils.SqlExecutionException"
REST_CLIENT_EXCEPTION = "org.apache.flink.runtime.rest.util.RestClientException"
#: Flink's gateway Constants: the columns of SHOW JOBS / DESCRIBE JOB and STOP JOB ... WITH SAVEPOINT.
JOB_ID, JOB_NAME, STATUS, START_TIME, SAVEPOINT_PATH = "job id", "job name", "status", "start time", "savepoint path"
#: Where STOP JOB ... WITH SAVEPOINT writes, in Flink's order: the session's key (2.x name, then the deprecated
#: one); without either, the gateway's default (the state dir's `savepoints/`); else the cluster's own default.
SAVEPOINT_KEYS = ("execution.checkpointing.savepoint-dir", "state.savepoints.dir")
#: `client.timeout`'s default (ClientOptions.CLIENT_TIMEOUT, 1 min): how long a savepoint may take.
CLIENT_TIMEOUT_SECONDS = 60.0
_POLL_SECONDS = 0.1
#: A task's states from its deployment until its operators are open, and before its deployment (settle_before_cancel)
_OPENING = frozenset({"DEPLOYING", "INITIALIZING"})
_PENDING = frozenset({"CREATED", "SCHEDULED"})
_SETTLE_POLL_SECONDS = 0.05


class ClusterActionError(Exception):
    """A job statement that failed: Flink's SqlExecutionException text over its cause (the cluster's answer)."""

    def __init__(self, message: str, cause: str | None = None):
        super().__init__(message)
        self.message = message
        self.cause = cause

    def text(self) -> str:
        """The exception chain as Java prints it (no frames: none of it ran in a JVM)."""
        head = f"{SQL_EXECUTION_EXCEPTION}: {self.message}"
        return head if self.cause is None else f"{head}\nCaused by: {self.cause}"


@dataclass(frozen=True)
class JobStatement:
    """What a SHOW JOBS / DESCRIBE JOB / STOP JOB statement asks (the parser's operation, read by name)."""

    verb: str  # show | describe | stop
    job_id: str | None = None
    with_savepoint: bool = False
    with_drain: bool = False


def job_statement(operation: Any) -> JobStatement | None:
    """The job statement behind a parsed Flink operation (ShowJobsOperation, DescribeJobOperation,
    StopJobOperation), or None for any other operation."""
    name = str(operation.getClass().getSimpleName())
    if name == "ShowJobsOperation":
        return JobStatement("show")
    if name == "DescribeJobOperation":
        return JobStatement("describe", str(operation.getJobId()))
    if name == "StopJobOperation":
        return JobStatement("stop", str(operation.getJobId()), bool(operation.isWithSavepoint()),
                            bool(operation.isWithDrain()))
    return None


def _rest_error(status: int, body: bytes) -> str:
    """A cluster's error answer as the RestClientException a ClusterClient would raise for it."""
    try:
        errors = json.loads(body.decode("utf-8")).get("errors") or []
    except (ValueError, AttributeError):
        errors = [body.decode("utf-8", "replace").strip() or f"HTTP {status}"]
    return f"{REST_CLIENT_EXCEPTION}: [{', '.join(str(e) for e in errors)}]"


class ClusterJobs:
    """The job calls of Flink's ClusterClient, over the cluster's REST API (`rest` says where, and with which TLS
    context)."""

    def __init__(self, rest: FlinkRest):
        self.rest = rest

    def _call(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        parts = urlsplit(self.rest.base_url)
        host, port = parts.hostname or "127.0.0.1", parts.port
        if parts.scheme == "https":
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                host, port, timeout=self.rest.timeout, context=self.rest.ssl_context)
        else:
            conn = http.client.HTTPConnection(host, port, timeout=self.rest.timeout)
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json"} if data is not None else {}
        try:
            conn.request(method, parts.path + path, body=data, headers=headers)
            response = conn.getresponse()
            status, raw = response.status, response.read()
        except (OSError, http.client.HTTPException) as exc:
            raise RestUnavailable(f"{self.rest.base_url}{path}: {exc}") from exc
        finally:
            conn.close()
        if not 200 <= status < 300:
            raise ClusterActionError("", _rest_error(status, raw))
        return json.loads(raw.decode("utf-8")) if raw.strip() else {}

    def list_jobs(self) -> list[dict[str, Any]]:
        """`/jobs/overview`: id, name, state, start time (ms) of every job the cluster knows."""
        return list(self._call("GET", "/jobs/overview").get("jobs", []))

    def cancel(self, job_id: str) -> None:
        self._call("PATCH", f"/jobs/{job_id}?mode=cancel")

    def settle_before_cancel(self, job_id: str, opening: float = 10.0, pending: float = 2.0) -> None:
        """Return once cancelling the job cannot kill a TaskManager: none of its tasks is being deployed or opened
        (waiting at most `opening` seconds), nor are all about to be (`pending` seconds: a task waiting for a slot
        may wait long). A cancel that reaches a task before its operators opened closes a collect sink that never
        opened, and Flink 2.2 takes the sink's NullPointerException for a fatal error: the TaskManager exits,
        failing every job on it (FLINK-39330; seen as a Ctrl-C or a SIGTERM at the moment a query starts). A job
        that is not running, or a cluster that does not answer, returns at once."""
        started = time.monotonic()

        def settled() -> bool:
            # /jobs/overview, not /jobs/:id: the JobManager caches the latter's answer for seconds
            # (web.refresh-interval), so asking it here would show the job RUNNING for that long after the cancel
            try:
                job = next((j for j in self.list_jobs() if j.get("jid") == job_id), None)
            except (ClusterActionError, RestUnavailable):
                return True
            if job is None or job.get("state") != "RUNNING":
                return True
            states = {state.upper() for state, count in (job.get("tasks") or {}).items() if count and state != "total"}
            if states & _OPENING:
                return False
            # all waiting: about to deploy together (a streaming job); some ran already: a batch job's later
            # stage, waiting for an earlier one's end, which may be long
            return not states <= _PENDING or time.monotonic() - started > pending

        Wait(f"job {job_id}'s tasks to open", opening, _SETTLE_POLL_SECONDS).poll(settled)

    def stop_with_savepoint(self, job_id: str, drain: bool, directory: str | None,
                            timeout: float = CLIENT_TIMEOUT_SECONDS) -> str:
        """Stop the job with a savepoint; the savepoint's path once the cluster has written it."""
        body: dict[str, Any] = {"drain": drain, "formatType": "CANONICAL"}
        if directory:
            body["targetDirectory"] = directory
        trigger = self._call("POST", f"/jobs/{job_id}/stop", body)["request-id"]

        def written() -> str | None:
            """The savepoint's path once the trigger is COMPLETED; a failed savepoint raises its cause."""
            answer = self._call("GET", f"/jobs/{job_id}/savepoints/{trigger}")
            if answer.get("status", {}).get("id") != "COMPLETED":
                return None
            operation = answer.get("operation") or {}
            if "location" in operation:
                return str(operation["location"])
            cause = operation.get("failure-cause") or {}
            raise ClusterActionError("", str(cause.get("stack-trace") or cause.get("class") or cause).strip())

        location = Wait(f"the savepoint of job {job_id}", timeout, _POLL_SECONDS).poll(written)
        if location is None:
            raise ClusterActionError("", f"java.util.concurrent.TimeoutException: the savepoint of job {job_id} was "
                                         f"not complete after {timeout:.0f} s")
        return location


def _timestamp_ltz(millis: int, zone: str | None) -> tuple[str, str]:
    """A TIMESTAMP_LTZ(3) value in the two row formats: JSON (flink-json's ISO-8601 in UTC) and PLAIN_TEXT
    (in the session's `table.local-time-zone`)."""
    instant = datetime.fromtimestamp(millis / 1000, tz=UTC)
    try:
        local_zone = ZoneInfo(zone) if zone and zone.lower() != "default" else None
    except (ZoneInfoNotFoundError, ValueError):
        local_zone = None
    local = instant.astimezone(local_zone) if local_zone else instant.astimezone()
    as_json = instant.strftime("%Y-%m-%dT%H:%M:%S.") + f"{instant.microsecond // 1000:03d}Z"
    as_text = local.strftime("%Y-%m-%d %H:%M:%S.") + f"{local.microsecond // 1000:03d}"
    return as_json, as_text


TIMESTAMP_LTZ_TYPE = {"type": "TIMESTAMP_WITH_LOCAL_TIME_ZONE", "nullable": True, "precision": 3}


def _job_columns() -> list[dict[str, Any]]:
    return [string_column(JOB_ID), string_column(JOB_NAME), string_column(STATUS),
            {"name": START_TIME, "logicalType": dict(TIMESTAMP_LTZ_TYPE), "comment": None}]


class JobRows(StaticRows):
    """SHOW JOBS / DESCRIBE JOB rows: three STRING columns and a TIMESTAMP_LTZ(3), whose two formats differ."""

    def __init__(self, jobs: list[dict[str, Any]], zone: str | None):
        super().__init__(_job_columns(), [])
        json_rows, text_rows = [], []
        for job in jobs:
            fields = [str(job.get("jid", "")), str(job.get("name", "")), str(job.get("state", ""))]
            as_json, as_text = _timestamp_ltz(int(job.get("start-time", 0)), zone)
            json_rows.append(json.dumps({"kind": "INSERT", "fields": [*fields, as_json]}, ensure_ascii=False))
            text_rows.append(json.dumps({"kind": "INSERT", "fields": [*fields, as_text]}, ensure_ascii=False))
        self._json, self._text = json_rows, text_rows

    def take(self, max_rows: int, wait: float = 0.0) -> Any:
        from flinklab.gateway.results import Page

        json_page, self._json = self._json[:max_rows], self._json[max_rows:]
        text_page, self._text = self._text[:max_rows], self._text[max_rows:]
        return Page(len(json_page), ",".join(json_page), ",".join(text_page))

    def finished(self) -> bool:
        return not self._json


def savepoint_dir(conf: Mapping[str, str], state_dir: Path | None) -> str | None:
    """Where a savepoint goes: the session's savepoint dir, else the gateway's state dir's `savepoints/`."""
    for key in SAVEPOINT_KEYS:
        if conf.get(key, "").strip():
            return conf[key].strip()
    return str((state_dir / "savepoints").resolve()) if state_dir is not None else None


def run_job_statement(statement: JobStatement, jobs: ClusterJobs, conf: Mapping[str, str], operation: str,
                      state_dir: Path | None) -> ResultSource:
    """Run SHOW JOBS / DESCRIBE JOB / STOP JOB as Flink's OperationExecutor does; `operation` is the operation's
    handle (Flink's messages name it)."""
    zone = conf.get("table.local-time-zone")
    if statement.verb == "show":
        try:
            return JobRows(jobs.list_jobs(), zone)
        except (ClusterActionError, RestUnavailable) as exc:
            raise ClusterActionError("Failed to list jobs in the cluster.", _cause(exc)) from exc
    job_id = statement.job_id or ""
    if statement.verb == "describe":
        _check_job_id(job_id, f"Failed to get job {job_id} in the cluster.")
        try:
            found = [j for j in jobs.list_jobs() if j.get("jid") == job_id.lower()]
        except (ClusterActionError, RestUnavailable) as exc:
            raise ClusterActionError(f"Failed to get job {job_id} in the cluster.", _cause(exc)) from exc
        if not found:
            raise ClusterActionError(f"Described job {job_id} does not exist in the cluster.")
        return JobRows(found[:1], zone)
    stop_failed = (f"Could not stop job {job_id} {'with savepoint' if statement.with_savepoint else ''} for "
                   f"operation {operation}.")
    _check_job_id(job_id, stop_failed)
    try:
        if statement.with_savepoint:
            path = jobs.stop_with_savepoint(job_id.lower(), statement.with_drain, savepoint_dir(conf, state_dir))
            return StaticRows([string_column(SAVEPOINT_PATH)], [[path]])
        jobs.cancel(job_id.lower())
    except (ClusterActionError, RestUnavailable) as exc:
        raise ClusterActionError(stop_failed, _cause(exc)) from exc
    return StaticRows.ok()


def _check_job_id(job_id: str, failed: str) -> None:
    """JobID.fromHexString's check, with its message under `failed`, before any call reaches the cluster."""
    if not re.fullmatch(r"[0-9a-fA-F]{32}", job_id):
        raise ClusterActionError(
            failed, f"java.lang.IllegalArgumentException: Cannot parse JobID from "
            f"\"{job_id}\". The expected format is [0-9a-fA-F]{{32}}, e.g. fd72014d4c864993a2e5a9287b4a9c5d.")


def _cause(exc: Exception) -> str:
    if isinstance(exc, ClusterActionError):
        return exc.text() if exc.message else str(exc.cause)
    return f"java.net.ConnectException: {exc}"
