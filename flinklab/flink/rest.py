"""A tiny client for Flink's REST API (stdlib only: the grader and CLI must not need more)."""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any


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
        url = f"{self.base_url}{path}"
        try:
            with urllib.request.urlopen(url, timeout=self.timeout, context=self.ssl_context) as resp:
                return json.loads(resp.read().decode("utf-8"))
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise RestUnavailable(f"{url}: {exc}") from exc

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
