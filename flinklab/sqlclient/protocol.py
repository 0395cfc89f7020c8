"""A client of Flink's SQL Gateway REST API: sessions, statements, operations, result pages.

Speaks the protocol as Flink documents it, so it works against flinklab's gateway and Flink's own. No JVM. HTTP is
the standard library's http.client over a small pool of kept-alive connections: httpx cost a third of
`sql-client.sh -f`'s start (it imports its own command line, click, rich and pygments included).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import select
import socket
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from flinklab.access import HEADER, bearer
from flinklab.errors import ClusterError

#: The API version this client speaks (configure-session needs v2 or later).
API_VERSION = "v3"
#: flinklab's gateway's own endpoint for its cluster warm-up (flinklab.gateway.app.WARM_UP_PATH)
WARM_UP_PATH = "/flinklab/warm-up"
_SERVER_SIDE_START = "<Exception on server side:\n"
_SERVER_SIDE_END = "End of exception on server side>"


class NoGatewayError(ClusterError):
    def __init__(self, url: str):
        super().__init__(f"No SQL gateway answers at {url}.", "Start the cluster and its gateway with `flink-up`.")


class UnauthorizedError(ClusterError):
    def __init__(self, url: str):
        super().__init__(f"The SQL gateway at {url} refused this client (401 Unauthorized: no token, or not its "
                         "token).", "flinklab's clients send the token flink-up wrote into the state dir "
                         "(`flinklab status` says where); `flink-up` restarts a gateway with a new one.")


REST_CLIENT_EXCEPTION = "org.apache.flink.runtime.rest.util.RestClientException"


class GatewayError(Exception):
    """The gateway answered with an error: its HTTP status and `errors` list."""

    def __init__(self, status: int, errors: list[str]):
        self.status = status
        self.errors = errors
        super().__init__(errors[-1] if errors else f"HTTP {status}")

    @property
    def client_side(self) -> str:
        """The error as Flink's client holds it, a RestClientException whose message is the `errors` list (Java's
        List.toString), server-side trace inside: what `sql-client.verbose` prints (CliStrings.messageError with
        verbose stringifies the deepest cause that has a message; the client's own frames are not ours to print)."""
        return f"{REST_CLIENT_EXCEPTION}: [{', '.join(self.errors)}]"

    @property
    def server_side(self) -> str:
        """The server-side exception text (Flink's `<Exception on server side: ...>`), else the last error."""
        for text in reversed(self.errors):
            if text.startswith(_SERVER_SIDE_START):
                inner = text[len(_SERVER_SIDE_START):]
                if inner.rstrip().endswith(_SERVER_SIDE_END):
                    inner = inner.rstrip()[: -len(_SERVER_SIDE_END)]
                return inner.strip()
        return self.errors[-1] if self.errors else f"HTTP {self.status}"


@dataclass
class Page:
    """One fetched page of an operation's result."""

    result_type: str  # NOT_READY | PAYLOAD | EOS
    is_query: bool
    job_id: str | None
    result_kind: str  # SUCCESS | SUCCESS_WITH_CONTENT
    columns: list[dict[str, Any]] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)  # {"kind": ..., "fields": [...]}
    next_uri: str | None = None


class GatewayClient:
    """A pool of HTTP connections to a gateway at `url` (e.g. http://127.0.0.1:8083), safe to use from threads:
    each call takes an idle connection (or opens one) and gives it back when the answer is read."""

    def __init__(self, url: str, timeout: float = 60.0, token: Callable[[], str | None] | None = None):
        self.url = url.rstrip("/")
        #: the gateway's token, asked before the first call that needs it and again after a 401 (a gateway that
        #: restarted has a new one); None: no token is sent
        self.token_source = token
        self._authorization: str | None = None
        self._token_read = False
        parts = urlsplit(self.url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or "localhost"
        self._port = parts.port
        self._base = parts.path.rstrip("/")
        self._timeout = timeout
        self._idle: list[http.client.HTTPConnection] = []
        self._busy: set[http.client.HTTPConnection] = set()  # connections a call is waiting on
        self._lock = threading.Lock()
        self._abort: Callable[[], BaseException] | None = None

    def abort(self, error: Callable[[], BaseException]) -> None:
        """From now on every call except the clean-up ones (closing an operation or a session) raises `error()`
        before it is sent: whatever runs statements through this client stops at its next call (the cluster died,
        or Ctrl-C). A call in flight is cut off at once (its socket shut down) and raises `error()` too. Safe from
        any thread."""
        self._abort = error
        with self._lock:
            busy = list(self._busy)
        for connection in busy:
            with contextlib.suppress(OSError, AttributeError):
                connection.sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()

    def shorten_timeout(self, seconds: float) -> None:
        """From now on, give up on a call after `seconds` (the cluster died: clean-up calls must not wait long)."""
        self._timeout = seconds
        with self._lock:
            for connection in self._idle:
                connection.timeout = seconds
                if connection.sock is not None:
                    connection.sock.settimeout(seconds)

    def _connection(self) -> tuple[http.client.HTTPConnection, bool]:
        """An idle connection the server has not closed (and True), else a new one (and False)."""
        while True:
            with self._lock:
                connection = self._idle.pop() if self._idle else None
            if connection is None:
                kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
                return kind(self._host, self._port, timeout=self._timeout), False
            sock = connection.sock
            # readable while idle means the server closed it (its keep-alive ran out): open another
            if sock is not None and not select.select([sock], [], [], 0)[0]:
                return connection, True
            connection.close()

    def _headers(self, fresh: bool = False) -> dict[str, str]:
        if self.token_source is not None and (fresh or not self._token_read):
            token = self.token_source()
            self._authorization = None if token is None else bearer(token)
            self._token_read = True
        headers = {"Accept": "application/json"}
        if self._authorization is not None:
            headers[HEADER] = self._authorization
        return headers

    def _send(self, method: str, path: str, payload: bytes | None, headers: dict[str, str]) -> tuple[int, bytes]:
        if payload is not None:
            headers["Content-Type"] = "application/json"
        target = path if "://" not in path else path[path.index("/", path.index("://") + 3):]
        for attempt in (1, 2):
            connection, reused = self._connection()
            with self._lock:
                self._busy.add(connection)
            try:
                connection.request(method, self._base + target, body=payload, headers=headers)
                with self._lock:
                    self._busy.add(connection)  # request() may have opened a new socket: abort must see it
                response = connection.getresponse()
                data = response.read()
            except (OSError, http.client.HTTPException) as exc:
                connection.close()
                if isinstance(exc, TimeoutError):  # the server is slow, not gone: asking again would wait again
                    raise
                if reused and attempt == 1 and self._abort is None:  # a kept-alive connection the server dropped
                    # (it restarted): again; never after abort(), which is what cut this one off
                    continue
                raise
            except BaseException:
                connection.close()
                raise
            finally:
                with self._lock:
                    self._busy.discard(connection)
            if response.will_close:
                connection.close()
            else:
                with self._lock:
                    self._idle.append(connection)
            return response.status, data
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _call(self, method: str, path: str, body: Mapping[str, Any] | None = None, *, cleanup: bool = False,
              public: bool = False) -> Any:
        """One request; `public` ones (`/info`) go without the token: a client learns whether a gateway answers
        before it needs the token file."""
        if self._abort is not None and not cleanup:
            raise self._abort()
        payload = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        try:
            status, raw = self._send(method, path, payload, {"Accept": "application/json"} if public else
                                     self._headers())
            if status == 401 and self.token_source is not None:  # the gateway restarted with a new token
                status, raw = self._send(method, path, payload, self._headers(fresh=True))
        except (OSError, http.client.HTTPException):  # refused, reset, timed out, or not HTTP at all
            if self._abort is not None and not cleanup:  # cut off by abort(): its reason, not "no gateway"
                raise self._abort() from None
            raise NoGatewayError(self.url) from None
        text = raw.decode("utf-8", "replace")
        try:
            data = json.loads(text)
        except ValueError:
            raise GatewayError(status, [text[:500]]) from None
        if status == 401:
            raise UnauthorizedError(self.url)
        if status >= 400:
            errors = data.get("errors") if isinstance(data, dict) else None
            raise GatewayError(status, [str(e) for e in errors or [text[:500]]])
        return data

    def _v(self, path: str) -> str:
        return f"/{API_VERSION}{path}"

    def info(self) -> dict[str, Any]:
        return self._call("GET", self._v("/info"), public=True)

    def warm_up(self, start: bool = True, csv_path: str | None = None) -> dict[str, Any]:
        """flinklab's gateway only (not Flink's API): start its cluster warm-up, over the CSV file `csv_path` (a
        path the TaskManagers read) when given (or, `start=False`, ask how far it is):
        {"state": "idle" | "running" | "done" | "failed", "seconds": ...}."""
        if not start:
            return self._call("GET", WARM_UP_PATH)
        return self._call("POST", WARM_UP_PATH, {"csvPath": csv_path} if csv_path else None)

    def open_session(self, properties: Mapping[str, str] | None = None, name: str | None = None) -> str:
        body: dict[str, Any] = {"properties": dict(properties or {})}
        if name:
            body["sessionName"] = name
        return str(self._call("POST", self._v("/sessions"), body)["sessionHandle"])

    def close_session(self, session: str) -> None:
        self._call("DELETE", self._v(f"/sessions/{session}"), cleanup=True)

    def session_config(self, session: str) -> dict[str, str]:
        return dict(self._call("GET", self._v(f"/sessions/{session}"))["properties"])

    def configure_session(self, session: str, statement: str) -> None:
        self._call("POST", self._v(f"/sessions/{session}/configure-session"), {"statement": statement})

    def execute(self, session: str, statement: str, execution_config: Mapping[str, str] | None = None) -> str:
        body: dict[str, Any] = {"statement": statement}
        if execution_config:
            body["executionConfig"] = dict(execution_config)
        return str(self._call("POST", self._v(f"/sessions/{session}/statements"), body)["operationHandle"])

    def status(self, session: str, operation: str, wait: float | None = None) -> str:
        """The operation's status; with `wait`, flinklab's gateway answers when the operation stops running or
        after `wait` seconds (Flink's gateway ignores the parameter and answers at once)."""
        query = "" if wait is None else f"?wait={wait:g}"
        return str(self._call("GET", self._v(f"/sessions/{session}/operations/{operation}/status{query}"))["status"])

    def cancel(self, session: str, operation: str) -> str:
        return str(self._call("POST", self._v(f"/sessions/{session}/operations/{operation}/cancel"))["status"])

    def close_operation(self, session: str, operation: str) -> None:
        self._call("DELETE", self._v(f"/sessions/{session}/operations/{operation}/close"), cleanup=True)

    def fetch(self, uri: str) -> Page:
        data = self._call("GET", uri)
        results = data.get("results") or {}
        return Page(
            result_type=str(data.get("resultType")),
            is_query=bool(data.get("isQueryResult")),
            job_id=data.get("jobID"),
            result_kind=str(data.get("resultKind")),
            columns=list(results.get("columns") or []),
            rows=list(results.get("data") or []),
            next_uri=data.get("nextResultUri"),
        )

    def first_uri(self, session: str, operation: str, row_format: str = "PLAIN_TEXT") -> str:
        return self._v(f"/sessions/{session}/operations/{operation}/result/0?rowFormat={row_format}")

    def pages(self, session: str, operation: str, row_format: str = "PLAIN_TEXT") -> Iterator[Page]:
        """Every page up to EOS, NOT_READY ones included (the gateway holds each fetch briefly for rows)."""
        uri: str | None = self.first_uri(session, operation, row_format)
        while uri is not None:
            page = self.fetch(uri)
            yield page
            uri = page.next_uri if page.result_type != "EOS" else None
