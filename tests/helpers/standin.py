"""A stand-in HTTP server for the unit tests of flinklab's own HTTP clients (their error paths, what they send):
`serve(answer)` runs one on a free 127.0.0.1 port and yields its URL. The live tests use the real cluster."""

from __future__ import annotations

import contextlib
import ssl
import threading
from collections.abc import Callable, Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: (status, content type, body)
Answer = tuple[int, str, bytes]
JSON = "application/json"


@contextlib.contextmanager
def serve(answer: Mapping[str, Answer] | Callable[[BaseHTTPRequestHandler], Answer],
          tls: ssl.SSLContext | None = None) -> Iterator[str]:
    """A server answering each GET with `answer(request)`, or by path from a table of them (else 404); over TLS
    with the server context `tls`. Yields its URL."""

    def reply(request: BaseHTTPRequestHandler) -> Answer:
        if callable(answer):
            return answer(request)
        return answer.get(request.path, (404, "text/plain", b"not found"))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            status, kind, body = reply(self)
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
