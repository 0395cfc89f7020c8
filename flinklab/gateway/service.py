"""The gateway's sessions and operations, independent of HTTP (Flink's SqlGatewayService, on PyFlink).

Sessions are isolated (each has its own TableEnvironment, catalog and configuration), run concurrently, and
expire after `idle_timeout` seconds without a request. One statement runs at a time per session: a second one
waits for the first to produce its result, as in Flink where a session executes its operations in order.
"""

from __future__ import annotations

import contextlib
import logging
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from flinklab.flink.rest import FlinkRest, RestUnavailable
from flinklab.flink.tls import TlsError, client_context, cluster_client_options, cluster_rest
from flinklab.gateway.errors import error_text
from flinklab.gateway.jobs import ClusterJobs
from flinklab.gateway.jvm import Jvm
from flinklab.gateway.operations import Operation
from flinklab.gateway.results import ResultSource
from flinklab.gateway.session import Session
from flinklab.gateway.warmup import DRY_TARGET, Traffic, WarmUp, warm_cluster, warm_planner

log = logging.getLogger("flinklab.gateway")

#: Flink's `sql-gateway.session.idle-timeout` and `sql-gateway.session.check-interval` defaults.
DEFAULT_IDLE_TIMEOUT = 600.0
DEFAULT_CHECK_INTERVAL = 60.0


class NotFound(Exception):
    """A session or operation handle the gateway does not know (any more)."""


@dataclass(frozen=True)
class GatewayConfig:
    #: the Flink cluster's REST endpoint (jobs are submitted there), or how to find it when a session opens
    #: (flink-up's gateway reads the cluster record then, so it follows the cluster it was started beside)
    rest_url: str | Callable[[], str]
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT
    check_interval: float = DEFAULT_CHECK_INTERVAL
    #: the state dir whose TLS material reaches an https (`flink-up --shared`) cluster (flinklab.flink.tls)
    state_dir: Path | None = None

    def cluster_url(self) -> str:
        return self.rest_url() if callable(self.rest_url) else self.rest_url

    def cluster_rest(self, url: str, timeout: float = 5.0) -> FlinkRest:
        """A REST client of the cluster at `url` (with the client certificate when it is https)."""
        return cluster_rest(url, self._state_dir(url), timeout)

    def ssl_context(self, url: str) -> ssl.SSLContext | None:
        """The client context for the cluster at `url` (None for http)."""
        return client_context(url, self._state_dir(url))

    def cluster_tls_options(self, url: str) -> dict[str, str]:
        """The Flink options a session needs for the cluster at `url`: `security.ssl.rest.*` when it is https."""
        return cluster_client_options(url, self._state_dir(url))

    def _state_dir(self, url: str) -> Path:
        if self.state_dir is None and url.startswith("https:"):
            raise TlsError(f"The cluster at {url} wants a client certificate, and this gateway has no state dir.",
                           "Start the gateway with flink-up (it gives it the state dir).")
        return self.state_dir or Path(".")


class GatewayService:
    """Sessions on one JVM; the HTTP layer (app.py) maps Flink's REST API onto these methods."""

    def __init__(self, jvm: Jvm, config: GatewayConfig):
        self.jvm = jvm
        self.config = config
        self._sessions: dict[str, Session] = {}
        self._operations: dict[str, dict[str, Operation]] = {}
        self._lock = threading.Lock()
        self._parallelism: dict[str, str] = {}  # cluster URL -> its parallelism.default
        self._stopped = threading.Event()
        self._expiry = threading.Thread(target=self._expire_loop, name="flinklab-session-expiry", daemon=True)
        self._expiry.start()
        #: the planner's warm-up (the gateway process starts it once it serves) and the cluster's (one tiny job,
        #: started by `POST /flinklab/warm-up` once the cluster is ready): flinklab/gateway/warmup.py
        #: both give way to learners' statements (`traffic`: they wait for a quiet moment before each step)
        self.traffic = Traffic()
        self._cluster_warming = Traffic(quiet=0.0)  # the planner's warm-up gives way to the cluster's planning
        self.planner_warm_up = WarmUp("planner", lambda: warm_planner(jvm, traffic=self.traffic,
                                                                        yield_to=self._cluster_warming))
        self.cluster_warm_up = WarmUp("cluster", self._warm_cluster)

    def _warm_cluster(self, csv_path: str | None = None) -> float:
        return warm_cluster(self.jvm, self.cluster_conf(), traffic=self.traffic, csv_path=csv_path,
                            planning=self._cluster_warming)

    # ---- sessions --------------------------------------------------------------------------------------

    def cluster_conf(self) -> dict[str, str]:
        """Where a new session's jobs go: `execution.target: remote` at the cluster's REST endpoint, with the
        cluster's default parallelism (a TableEnvironment made in this JVM would otherwise give every job one
        task per core of this machine: Flink's gateway takes `parallelism.default` from its configuration)."""
        url = self.config.cluster_url()
        parsed = urlparse(url)
        # an https cluster (`flink-up --shared`) wants the client certificate: its options are the session's
        # cluster configuration, which its TableEnvironment gets but `SET;` and GET /sessions/:handle never list
        return {"execution.target": "remote", "rest.address": parsed.hostname or "127.0.0.1",
                "rest.port": str(parsed.port or 8081), "parallelism.default": self._default_parallelism(url),
                **self.config.cluster_tls_options(url)}

    def _default_parallelism(self, url: str) -> str:
        """The cluster's `parallelism.default` (asked once per cluster URL; Flink's default 1 if it does not say)."""
        known = self._parallelism.get(url)
        if known is None:
            known = "1"
            try:
                entries = self.config.cluster_rest(url, timeout=5).get("/jobmanager/config")
                found = [e.get("value") for e in entries if e.get("key") == "parallelism.default"]
                if found and str(found[0]).strip().isdigit() and int(found[0]) > 0:
                    known = str(int(found[0]))
                self._parallelism[url] = known
            except (RestUnavailable, AttributeError, TypeError):
                pass  # asked again next time; the statement itself will say what is wrong with the cluster
        return known

    def open_session(self, properties: Mapping[str, str] | None = None, name: str | None = None) -> Session:
        url = self.config.cluster_url()
        session = Session(self.jvm, self.cluster_conf(), properties, name,
                          cluster_jobs=lambda: ClusterJobs(self.config.cluster_rest(url, timeout=30)),
                          state_dir=self.config.state_dir)
        with self._lock:
            self._sessions[session.handle] = session
            self._operations[session.handle] = {}
        return session

    def session(self, handle: str) -> Session:
        with self._lock:
            session = self._sessions.get(handle)
        if session is None:
            raise NotFound(f"Session '{handle}' does not exist.")
        session.touch()
        return session

    def close_session(self, handle: str) -> None:
        session = self.session(handle)
        with self._lock:
            self._sessions.pop(handle, None)
            operations = self._operations.pop(handle, {})
        for operation in operations.values():
            operation.close(detach_job=True)  # an INSERT's job outlives its session, as in Flink
        session.close()

    def _expire_loop(self) -> None:
        while not self._stopped.wait(self.config.check_interval):
            now = time.monotonic()
            with self._lock:
                idle = [h for h, s in self._sessions.items() if now - s.last_access > self.config.idle_timeout]
            for handle in idle:
                with contextlib.suppress(NotFound):
                    self.close_session(handle)

    # ---- statements ------------------------------------------------------------------------------------

    def execute(self, handle: str, statement: str, execution_config: Mapping[str, str] | None = None, *,
                configure_only: bool = False) -> Operation:
        """Start `statement` in the session; returns at once with the operation (its result comes later)."""
        session = self.session(handle)
        overrides = {str(k): str(v) for k, v in (execution_config or {}).items()}
        handle_of: list[Operation] = []  # the operation, once made: some of Flink's messages name it

        def work() -> ResultSource:
            with self.traffic.busy(), session.lock:
                saved = {k: session.conf.get(k) for k in overrides}
                try:
                    for key, value in overrides.items():  # inside: a rejected one leaves none of them behind
                        session.set(key, value)
                    return session.execute(statement, configure_only=configure_only,
                                           operation_handle=handle_of[0].handle if handle_of else "")
                finally:
                    for key, value in saved.items():
                        if value is None:
                            session.conf.pop(key, None)
                        else:
                            session.conf[key] = value

        operation = Operation(work, lambda exc: error_text(self.jvm, exc), settle_job=self._settle_job)
        handle_of.append(operation)
        with self._lock:
            self._operations.setdefault(handle, {})[operation.handle] = operation
        return operation.start()

    def _settle_job(self, job_id: str) -> None:
        ClusterJobs(self.config.cluster_rest(self.config.cluster_url(), timeout=5)).settle_before_cancel(job_id)

    def operation(self, handle: str, operation_handle: str) -> Operation:
        self.session(handle)
        with self._lock:
            operation = self._operations.get(handle, {}).get(operation_handle)
        if operation is None:
            raise NotFound(f"Can not find the submitted operation in the OperationManager with the "
                           f"{operation_handle}.")
        return operation

    def close_operation(self, handle: str, operation_handle: str) -> Operation:
        operation = self.operation(handle, operation_handle)
        operation.close()
        with self._lock:
            self._operations.get(handle, {}).pop(operation_handle, None)
        return operation

    def stop(self) -> None:
        self._stopped.set()
        with self._lock:
            handles = list(self._sessions)
        for handle in handles:
            with contextlib.suppress(NotFound):
                self.close_session(handle)

    def warm_up(self) -> None:
        """Build a TableEnvironment and plan one query, so the first learner's statement finds the planner loaded
        (the rest of the planner's warm-up, planner_warm_up, runs on a thread once the gateway serves)."""
        # not registered: no client can see or expire it; the dry run submits nothing, so no cluster is needed yet
        session = Session(self.jvm, {"execution.target": DRY_TARGET})
        try:
            session.execute("EXPLAIN SELECT 1")
        finally:
            session.close()

    def info(self) -> dict[str, Any]:
        from flinklab.version import FLINK_VERSION

        return {"productName": "Apache Flink", "version": FLINK_VERSION}
