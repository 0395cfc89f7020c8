"""Flink's SQL Gateway REST API (v1 to v4) over :class:`GatewayService`, as a Starlette application.

Paths, bodies and errors follow Flink 2.2's `rest_v*_sql_gateway.yml`: every endpoint is served under each API
version that has it (`/v1/...` to `/v4/...`) and without a prefix (the default, latest version). Errors are
Flink's `{"errors": [...]}` with its HTTP statuses: 404 for an unknown path, 400 for a bad request body, 500 with
`Internal server error.` and the server-side stack trace (whose deepest cause is the statement's reason).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from flinklab.gateway import webui
from flinklab.gateway.auth import TokenGate
from flinklab.gateway.errors import SQL_GATEWAY_EXCEPTION, wrapped
from flinklab.gateway.operations import FetchError, OperationError
from flinklab.gateway.service import GatewayService, NotFound

VERSIONS = ("v1", "v2", "v3", "v4")
LATEST = VERSIONS[-1]
ROW_FORMATS = ("JSON", "PLAIN_TEXT")
#: How long a fetch waits for rows before it answers NOT_READY (clients poll less; rows go out when they come).
FETCH_WAIT_SECONDS = 0.5
PAGE_ROWS = 10_000
#: `GET .../status?wait=S` answers when the operation stops running or after S seconds (at most this many), not at
#: once: a client waits for an INSERT's job without polling on a clock.
STATUS_WAIT_PARAM = "wait"
STATUS_WAIT_MAX_SECONDS = 30.0
#: Where a page's encoded rows go in the response (a string no JSON value of ours contains)
_DATA = "\u0000rows\u0000"



class BadRequest(Exception):
    pass


def _errors(status: int, *errors: str) -> JSONResponse:
    return JSONResponse({"errors": list(errors)}, status_code=status)


def _server_side(summary: str, cause: str) -> JSONResponse:
    """A 500 as Flink's REST handlers send it: the exception on the server side, with its causes."""
    text = wrapped(cause, f"{SQL_GATEWAY_EXCEPTION}: {SQL_GATEWAY_EXCEPTION}: {summary}",
                   f"{SQL_GATEWAY_EXCEPTION}: {summary}")
    return _errors(500, "Internal server error.",
                   f"<Exception on server side:\n{text}\nEnd of exception on server side>")


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise BadRequest(f"Request did not match expected format: {exc}") from None
    if not isinstance(body, dict):
        raise BadRequest("Request did not match expected format: a JSON object is expected.")
    return body


def _string_map(value: Any, name: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadRequest(f"Request did not match expected format: {name} must be an object.")
    return {str(k): str(v) for k, v in value.items()}


class GatewayApi:
    """The endpoints; each returns the JSON body Flink's gateway returns."""

    def __init__(self, service: GatewayService):
        self.service = service

    async def info(self, request: Request) -> Response:
        return JSONResponse(self.service.info())

    async def api_versions(self, request: Request) -> Response:
        return JSONResponse({"versions": [v.upper() for v in VERSIONS]})

    async def warm_up(self, request: Request) -> Response:
        """flinklab's own (not Flink's API): POST starts the cluster's warm-up (warmup.py) unless it ran, GET says
        how far it is: {"state": "idle" | "running" | "done" | "failed", "seconds": ..., "planner": {the same}}.
        A POST's body may name the warm-up's CSV file, a path the TaskManagers read: {"csvPath": "/data/..."}."""
        warm, planner = self.service.cluster_warm_up, self.service.planner_warm_up
        if request.method == "POST":
            csv_path = (await _body(request)).get("csvPath")
            if csv_path is not None and not (isinstance(csv_path, str) and csv_path.startswith("/")):
                raise BadRequest("Request did not match expected format: csvPath must be an absolute path.")
            state = warm.start(**({"csv_path": csv_path} if csv_path else {}))
        else:
            state = warm.state
        return JSONResponse({"state": state, "seconds": warm.seconds,
                             "planner": {"state": planner.state, "seconds": planner.seconds}},
                            status_code=202 if state == "running" else 200)

    async def open_session(self, request: Request) -> Response:
        body = await _body(request)
        properties = _string_map(body.get("properties"), "properties")
        name = body.get("sessionName")
        session = await run_in_threadpool(self.service.open_session, properties, name)
        return JSONResponse({"sessionHandle": session.handle})

    async def get_session_config(self, request: Request) -> Response:
        session = self.service.session(request.path_params["session"])
        return JSONResponse({"properties": session.properties()})

    async def close_session(self, request: Request) -> Response:
        await run_in_threadpool(self.service.close_session, request.path_params["session"])
        return JSONResponse({"status": "CLOSED"})

    async def heartbeat(self, request: Request) -> Response:
        self.service.session(request.path_params["session"])
        return JSONResponse({})

    async def configure_session(self, request: Request) -> Response:
        body = await _body(request)
        statement = body.get("statement")
        if not isinstance(statement, str):
            raise BadRequest("Request did not match expected format: statement is required.")
        operation = self.service.execute(request.path_params["session"], statement, configure_only=True)
        await run_in_threadpool(operation.wait, 3600.0)
        await run_in_threadpool(operation.fetch, 0)  # raises OperationError when the statement failed
        self.service.close_operation(request.path_params["session"], operation.handle)
        return JSONResponse({})

    async def complete_statement(self, request: Request) -> Response:
        body = await _body(request)
        statement, position = body.get("statement"), body.get("position")
        if not isinstance(statement, str) or not isinstance(position, int):
            raise BadRequest("Request did not match expected format: statement and position are required.")
        session = self.service.session(request.path_params["session"])
        return JSONResponse({"candidates": await run_in_threadpool(complete, session, statement, position)})

    async def execute_statement(self, request: Request) -> Response:
        body = await _body(request)
        statement = body.get("statement")
        if not isinstance(statement, str):
            raise BadRequest("Request did not match expected format: statement is required.")
        config = _string_map(body.get("executionConfig"), "executionConfig")
        operation = self.service.execute(request.path_params["session"], statement, config)
        return JSONResponse({"operationHandle": operation.handle})

    async def operation_status(self, request: Request) -> Response:
        operation = self.service.operation(request.path_params["session"], request.path_params["operation"])
        wait = request.query_params.get(STATUS_WAIT_PARAM)
        if wait is not None:  # flinklab's long-poll; Flink's clients never send it, and Flink ignores it
            try:
                seconds = min(max(float(wait), 0.0), STATUS_WAIT_MAX_SECONDS)
            except ValueError:
                raise BadRequest(f"Cannot resolve query parameter {STATUS_WAIT_PARAM}: {wait!r} is not a number "
                                 "of seconds.") from None
            await run_in_threadpool(operation.wait_ended, seconds)
        return JSONResponse({"status": operation.status})

    async def cancel_operation(self, request: Request) -> Response:
        operation = self.service.operation(request.path_params["session"], request.path_params["operation"])
        await run_in_threadpool(operation.cancel)
        return JSONResponse({"status": operation.status})

    async def close_operation(self, request: Request) -> Response:
        p = request.path_params
        operation = await run_in_threadpool(self.service.close_operation, p["session"], p["operation"])
        return JSONResponse({"status": operation.status})

    async def fetch_results(self, request: Request) -> Response:
        p = request.path_params
        version = request.url.path.split("/")[1]
        version = version if version in VERSIONS else LATEST
        # v1 knows JSON only; later versions take ?rowFormat= and, like Flink's handler, fall back to JSON
        row_format = "JSON" if version == "v1" else (request.query_params.get("rowFormat") or "JSON").upper()
        if row_format not in ROW_FORMATS:
            raise BadRequest(f"Cannot resolve query parameter rowFormat: {row_format} is not one of "
                             f"{', '.join(ROW_FORMATS)}.")
        try:
            token = int(p["token"])
        except ValueError:
            raise BadRequest(f"Bad request, could not parse parameters: Cannot resolve path parameter (token) "
                             f"from value \"{p['token']}\".") from None
        operation = self.service.operation(p["session"], p["operation"])
        result_type, rows = await run_in_threadpool(operation.fetch, token, PAGE_ROWS, FETCH_WAIT_SECONDS)
        body: dict[str, Any] = {"resultType": result_type}
        source = operation.source
        if result_type != "NOT_READY" and source is not None:
            body["isQueryResult"] = source.is_query
            if source.job_id is not None:
                body["jobID"] = source.job_id
            body["resultKind"] = source.result_kind
            body["results"] = {"columns": source.columns, "rowFormat": row_format, "data": _DATA}
        if result_type != "EOS":
            next_token = token + 1 if result_type == "PAYLOAD" else token
            query = "" if version == "v1" else f"?rowFormat={row_format}"
            body["nextResultUri"] = (f"/{version}/sessions/{p['session']}/operations/{p['operation']}/result/"
                                     f"{next_token}{query}")
        # the rows come encoded from the JVM: spliced in as they are, not parsed and encoded again
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        text = text.replace(json.dumps(_DATA), rows.data(row_format), 1)
        return Response(text, media_type="application/json")


def complete(session: Any, statement: str, position: int) -> list[str]:
    """Completion candidates for `statement` at `position`: the session's tables, views, columns, functions and
    SET keys with their values (flinklab's, completion.py), then Flink's parser hints."""
    from flinklab.gateway.completion import extra_candidates, merge

    try:
        hints = [str(h) for h in session.complete(statement, position)]
    except Exception:  # noqa: BLE001 - a failing completion has no candidates
        hints = []
    with session.lock:  # the catalog is read while no statement of the session changes it
        return merge(hints, extra_candidates(session, statement, position))


#: flinklab's own endpoint (outside Flink's versioned API): the cluster's warm-up, which flink-up starts
WARM_UP_PATH = "/flinklab/warm-up"

#: (method, path, handler name, first version that has it)
ENDPOINTS = [
    ("GET", "/api_versions", "api_versions", 1),
    ("GET", "/info", "info", 1),
    ("POST", "/sessions", "open_session", 1),
    ("GET", "/sessions/{session}", "get_session_config", 1),
    ("DELETE", "/sessions/{session}", "close_session", 1),
    ("POST", "/sessions/{session}/heartbeat", "heartbeat", 1),
    ("POST", "/sessions/{session}/configure-session", "configure_session", 2),
    ("GET", "/sessions/{session}/complete-statement", "complete_statement", 2),
    ("POST", "/sessions/{session}/statements", "execute_statement", 1),
    ("GET", "/sessions/{session}/operations/{operation}/status", "operation_status", 1),
    ("POST", "/sessions/{session}/operations/{operation}/cancel", "cancel_operation", 1),  # POST in every spec
    ("DELETE", "/sessions/{session}/operations/{operation}/close", "close_operation", 1),
    ("GET", "/sessions/{session}/operations/{operation}/result/{token}", "fetch_results", 1),
]


def _guarded(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except BadRequest as exc:
            return _errors(400, str(exc))
        except NotFound as exc:
            return _server_side("Failed to find the session or operation.", f"{SQL_GATEWAY_EXCEPTION}: {exc}")
        except OperationError as exc:
            return _server_side("Failed to fetchResults.", exc.text)
        except FetchError as exc:
            return _server_side("Failed to fetchResults.", f"{SQL_GATEWAY_EXCEPTION}: {exc}")
        except Exception as exc:  # noqa: BLE001 - a 500 with the reason, as Flink's handlers answer
            return _server_side(f"Failed to {request.method} {request.url.path}.",
                                f"{SQL_GATEWAY_EXCEPTION}: {type(exc).__name__}: {exc}")

    return endpoint


def create_app(service: GatewayService, *, token: str) -> TokenGate:
    """The gateway's ASGI app, behind the door that asks for `token` (auth.py)."""
    api = GatewayApi(service)
    routes = []
    for method, path, name, since in ENDPOINTS:
        handler = _guarded(getattr(api, name))
        for number, version in enumerate(VERSIONS, start=1):
            if number >= since:
                routes.append(Route(f"/{version}{path}", handler, methods=[method]))
        routes.append(Route(path, handler, methods=[method]))

    routes.append(Route(WARM_UP_PATH, _guarded(api.warm_up), methods=["GET", "POST"]))  # flinklab's own
    routes += webui.routes(service.config)  # the cluster's Web UI under /cluster/ (webui.py)

    async def not_found(request: Request, exc: Exception) -> Response:
        return _errors(404, "Not found: " + request.url.path)

    async def not_allowed(request: Request, exc: Exception) -> Response:
        return _errors(405, f"Not allowed: {request.method} {request.url.path}")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # the first run_in_threadpool imports anyio's asyncio backend and starts the pool's first thread: 0.1 s
        # that fell on a learner's first call (its session open); here it falls on the server's start
        await run_in_threadpool(lambda: None)
        yield

    return TokenGate(Starlette(routes=routes, exception_handlers={404: not_found, 405: not_allowed},
                               lifespan=lifespan), token)
