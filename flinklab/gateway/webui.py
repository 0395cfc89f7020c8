"""The cluster's Web UI through the gateway, under `/cluster/`, behind the gateway's door (auth.py).

A `--shared` cluster's REST port (which serves the Web UI too) asks every client for the state dir's certificate,
which a browser does not have. The gateway has it: it forwards `/cluster/<path>` to `<cluster>/<path>` with it,
so the lab's user opens the Web UI at `http://127.0.0.1:<gateway port>/cluster/` (a browser on loopback gets in by
the peer-owner rule, as any of that user's tools; others get 401). Flink's dashboard uses relative URLs (`<base
href="./">`, hash routes, API calls such as `overview`), so it works under the prefix unchanged. A plain cluster is
forwarded the same way.
"""

from __future__ import annotations

import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from flinklab.errors import FlinklabError
from flinklab.flink.tls import WEB_UI_PATH
from flinklab.gateway.service import GatewayConfig

PREFIX = WEB_UI_PATH
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]
TIMEOUT_SECONDS = 30.0
#: Not passed on: hop-by-hop headers, the gateway's own credentials and host, and lengths and encodings httpx
#: recomputes (it decodes what it reads)
_DROP_REQUEST = frozenset({"host", "authorization", "cookie", "connection", "keep-alive", "te", "trailer",
                           "transfer-encoding", "upgrade", "proxy-authorization", "content-length",
                           "accept-encoding"})
_DROP_RESPONSE = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding",
                            "set-cookie", "trailer", "upgrade"})


def routes(config: GatewayConfig) -> list[Route]:
    """`/cluster` (a redirect to `/cluster/`) and `/cluster/{path}` forwarded to the config's cluster."""
    forwarder = Forwarder(config)

    async def forward(request: Request) -> Response:  # a function: Starlette takes an object for a raw ASGI app
        return await forwarder(request)

    async def to_slash(request: Request) -> Response:
        return RedirectResponse(f"{PREFIX}/", status_code=308)

    return [Route(PREFIX, to_slash, methods=METHODS),
            Route(PREFIX + "/{path:path}", forward, methods=METHODS)]


class Forwarder:
    """An endpoint that forwards a request to the cluster (with the client certificate when it is https)."""

    def __init__(self, config: GatewayConfig):
        self.config = config

    async def __call__(self, request: Request) -> Response:
        try:
            base = self.config.cluster_url().rstrip("/")
            verify = self.config.ssl_context(base)
        except FlinklabError as exc:
            return JSONResponse({"errors": [f"The cluster's Web UI is not reachable: {exc.message}"]}, status_code=502)
        target = f"{base}/{request.path_params['path']}"
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _DROP_REQUEST}
        try:
            async with httpx.AsyncClient(verify=verify if verify is not None else True,
                                         timeout=TIMEOUT_SECONDS) as client:
                answer = await client.request(request.method, target, params=request.url.query or None,
                                              headers=headers, content=await request.body())
        except httpx.HTTPError as exc:
            return JSONResponse({"errors": [f"The cluster at {base} does not answer ({type(exc).__name__})."]},
                                status_code=502)
        kept = {k: v for k, v in answer.headers.items() if k.lower() not in _DROP_RESPONSE}
        return Response(answer.content, status_code=answer.status_code, headers=kept)
