"""A tiny client for Flink's REST API (stdlib only: the grader and CLI must not need more).

HTTP is http.client, as in the gateway's client (flinklab.sqlclient.protocol): urllib.request would add tempfile,
shutil, hashlib and its handlers to the start of every `sql-client.sh` call, which asks the cluster once. Nothing
of urllib's is needed here: a JobManager answers these paths itself (no redirects) and is reached directly, as the
gateway's JVM reaches it (no http_proxy).
"""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import ssl


class RestUnavailable(Exception):
    """The REST endpoint did not answer (connection refused, timeout, non-JSON)."""


@dataclass(frozen=True)
class JobSummary:
    job_id: str
    name: str
    state: str  # RUNNING, FINISHED, FAILED, CANCELED, ...
    start_time: int  # epoch ms
    end_time: int  # epoch ms, -1 while running
    duration: int  # ms


class FlinkRest:
    """GET-only access to the endpoints we use: /overview, /jobs/overview, /jobs/<id>, /jobs/<id>/exceptions."""

    def __init__(self, base_url: str, timeout: float = 5.0, ssl_context: ssl.SSLContext | None = None):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        #: for an https endpoint (a `--shared` cluster: flinklab.flink.tls.cluster_rest builds the client for it)
        self.ssl_context = ssl_context

    def get(self, path: str) -> Any:
        """GET `path` as JSON; RestUnavailable when nothing answers, the answer is not 2xx, or it is not JSON."""
        url = f"{self.base_url}{path}"
        try:
            status, reason, body = self._get(url)
        except (OSError, http.client.HTTPException, ValueError) as exc:  # refused, timed out, reset, not HTTP
            raise RestUnavailable(f"{url}: {exc}") from exc
        if not 200 <= status < 300:
            raise RestUnavailable(f"{url}: HTTP Error {status}: {reason}")
        try:
            return json.loads(body.decode("utf-8"))
        except ValueError as exc:
            raise RestUnavailable(f"{url}: {exc}") from exc

    def _get(self, url: str) -> tuple[int, str, bytes]:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"unknown url type: {url!r}")
        if parts.scheme == "https":
            connection: http.client.HTTPConnection = http.client.HTTPSConnection(
                parts.hostname, parts.port, timeout=self.timeout, context=self.ssl_context)
        else:
            connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=self.timeout)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        try:
            connection.request("GET", target or "/", headers={"Connection": "close"})  # as urllib asked
            response = connection.getresponse()
            return response.status, response.reason, response.read()
        finally:
            connection.close()

    def overview(self) -> dict:
        """`{"taskmanagers", "slots-total", "slots-available", "jobs-running", ..., "flink-version"}`."""
        return self.get("/overview")

    def is_up(self) -> bool:
        try:
            self.overview()
            return True
        except RestUnavailable:
            return False

    def jobs(self) -> list[JobSummary]:
        data = self.get("/jobs/overview")
        return [
            JobSummary(
                job_id=j["jid"],
                name=j.get("name", ""),
                state=j.get("state", "UNKNOWN"),
                start_time=int(j.get("start-time", -1)),
                end_time=int(j.get("end-time", -1)),
                duration=int(j.get("duration", -1)),
            )
            for j in data.get("jobs", [])
        ]

    def job(self, job_id: str) -> dict:
        return self.get(f"/jobs/{job_id}")

    def job_exceptions(self, job_id: str) -> dict:
        return self.get(f"/jobs/{job_id}/exceptions")

    def taskmanagers(self) -> list[dict]:
        return self.get("/taskmanagers").get("taskmanagers", [])
