"""The gateway's door (flinklab/gateway/auth.py) and its token file (flinklab/access.py), on real sockets.

The door is served by uvicorn in front of a small Starlette app (the gateway's own app needs a JVM: the live side
is tests/test_gateway_security_live.py). Requests go out through real HTTP clients: httpx and flinklab's own
GatewayClient.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

from flinklab.access import TokenError, read_token, token_path, write_token
from flinklab.gateway.auth import UNAUTHORIZED, TokenGate, socket_owner
from flinklab.sqlclient.protocol import GatewayClient, UnauthorizedError

TOKEN = "t" * 43


class Door:
    """A TokenGate in front of an app answering {"ok": path} on every path, served by uvicorn on 127.0.0.1."""

    def __init__(self, token: str, uid: int | None = None):
        async def ok(request):
            return JSONResponse({"ok": request.url.path, "sessionHandle": "s"})

        app = Starlette(routes=[Route("/{path:path}", ok, methods=["GET", "POST", "DELETE"])])
        self.gate = TokenGate(app, token, uid)
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        self._server = uvicorn.Server(uvicorn.Config(self.gate, log_level="warning", lifespan="off"))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True)
        self._thread.start()
        while not self._server.started:
            self._thread.join(0.01)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)
        self._socket.close()


@pytest.fixture
def door() -> Iterator[Door]:
    served = Door(TOKEN)
    yield served
    served.stop()


@pytest.fixture
def strangers_door() -> Iterator[Door]:
    """A door whose gateway belongs to another uid: a token-less loopback request of this test is a stranger's."""
    served = Door(TOKEN, uid=os.geteuid() + 4242)
    yield served
    served.stop()


def test_the_right_token_gets_in_and_so_does_the_gateways_own_user_without_one(door: Door) -> None:
    good = httpx.get(f"{door.url}/v3/sessions/s", headers={"Authorization": f"Bearer {TOKEN}"})
    assert good.status_code == 200 and good.json()["ok"] == "/v3/sessions/s"
    # no header: the peer socket is this process's, the same Unix user as the gateway
    assert httpx.post(f"{door.url}/v3/sessions", json={}).status_code == 200


def raw_request(url: str, header: bytes) -> tuple[int, bytes]:
    """POST /v3/sessions with `Authorization: <header>` as bytes on the wire (HTTP clients refuse to send some)."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port))) as raw:
        raw.sendall(b"POST /v3/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nAuthorization: " + header
                    + b"\r\nConnection: close\r\n\r\n{}")
        answer = b""
        while chunk := raw.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


@pytest.mark.parametrize("header", [
    f"Bearer {'u' * 43}".encode(),  # wrong
    b"Bearer ",  # empty
    b"Bearer",
    f"Bearer {TOKEN}{'x' * 2000}".encode(),  # overlong
    f"Bearer {TOKEN[:-1]}".encode(),  # one character short
    f"Basic {TOKEN}".encode(),  # another scheme
    TOKEN.encode(),  # no scheme
    "Bearer tökén".encode(),  # non-ASCII, as UTF-8
    "Bearer t\u00f6k".encode("latin-1"),  # non-ASCII, as Latin-1
], ids=["wrong", "empty", "no-token", "overlong", "short", "basic", "bare", "utf8", "latin1"])
def test_a_request_with_a_bad_token_gets_flinks_401_body_without_its_token(door: Door, header: bytes) -> None:
    # a header that is present but wrong is refused even from the gateway's own user (no silent fall-back)
    status, body = raw_request(door.url, header)
    assert status == 401
    assert json.loads(body) == {"errors": [UNAUTHORIZED]}
    assert TOKEN.encode() not in body and b"u" * 43 not in body


def test_a_401_says_how_to_authenticate(door: Door) -> None:
    answer = httpx.post(f"{door.url}/v3/sessions", json={}, headers={"Authorization": "Bearer nope"})
    assert answer.status_code == 401 and answer.headers["www-authenticate"].startswith("Bearer")
    assert answer.headers["content-type"] == "application/json"


def test_a_stranger_without_the_token_is_refused_but_info_stays_open(strangers_door: Door) -> None:
    for method, path in [("POST", "/v3/sessions"), ("GET", "/sessions/s"), ("DELETE", "/v1/sessions/s"),
                         ("POST", "/v3/sessions/s/statements"), ("GET", "/v3/sessions/s/operations/o/result/0")]:
        assert httpx.request(method, f"{strangers_door.url}{path}").status_code == 401, path
    for path in ["/info", "/v1/info", "/v3/info", "/api_versions", "/v4/api_versions"]:
        assert httpx.get(f"{strangers_door.url}{path}").status_code == 200, path
    # ... and with the token the stranger gets in
    assert httpx.get(f"{strangers_door.url}/v3/sessions/s",
                     headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_the_owner_of_a_loopback_peer_is_read_from_proc_net() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.create_connection(server.getsockname()) as client:
            accepted, peer = server.accept()
            with accepted:
                assert socket_owner(peer, server.getsockname()) == os.geteuid()
                assert socket_owner((peer[0], peer[1] ^ 1), server.getsockname()) is None  # no such socket
            assert client.getsockname() == peer


def test_the_owner_of_an_ipv6_loopback_peer_is_read_from_proc_net_tcp6() -> None:
    try:
        server = socket.socket(socket.AF_INET6)
        server.bind(("::1", 0))
    except OSError as exc:  # a machine without IPv6 on loopback
        pytest.skip(f"no ::1 here: {exc}")
    with server:
        server.listen()
        with socket.create_connection(server.getsockname()[:2]):
            accepted, peer = server.accept()
            with accepted:
                assert socket_owner(peer[:2], server.getsockname()[:2]) == os.geteuid()


def test_flinklabs_client_sends_the_token_and_reads_it_again_after_a_401(tmp_path: Path) -> None:
    old = write_token(tmp_path)
    served = Door(old, uid=os.geteuid() + 4242)  # only the token gets in
    try:
        api = GatewayClient(served.url, token=lambda: read_token(tmp_path))
        assert api.open_session() == "s"
        served.gate._token = write_token(tmp_path).encode()  # the gateway restarted with a new token
        assert api.open_session() == "s"
        served.gate._token = b"x" * 43  # a token nobody has: a one-line error, not a GatewayError
        with pytest.raises(UnauthorizedError, match="refused this client"):
            api.open_session()
        assert GatewayClient(served.url).info()  # /info needs no token
    finally:
        served.stop()


def test_a_new_token_file_is_0600_and_new_each_time(tmp_path: Path) -> None:
    first = write_token(tmp_path)
    path = token_path(tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_token(tmp_path) == first
    path.chmod(0o644)
    second = write_token(tmp_path)  # an old file's mode is not kept
    assert second != first and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_token(tmp_path) == second
    assert [p.name for p in tmp_path.iterdir()] == ["gateway.token"]  # nothing left beside it


@pytest.mark.parametrize("setup, message", [
    (lambda p: None, r"No SQL gateway token at .*gateway\.token\.$"),
    (lambda p: (p.write_text("t" * 43 + "\n"), p.chmod(0o644)), r"is open to others \(mode 0644, must be 0600\)"),
    (lambda p: (p.write_text("t" * 43 + "\n"), p.chmod(0o620)), r"is open to others \(mode 0620"),
    (lambda p: (p.write_text(""), p.chmod(0o600)), r"does not hold a token"),
    (lambda p: (p.write_text("short\n"), p.chmod(0o600)), r"does not hold a token"),
    (lambda p: (p.write_text("t" * 300), p.chmod(0o600)), r"does not hold a token"),
    (lambda p: (p.write_text("tökén" * 10, encoding="utf-8"), p.chmod(0o600)), r"does not hold a token"),
    (lambda p: (p.with_name("real").write_text("t" * 43), p.symlink_to("real")), r"Cannot read .*: Too many levels"),
    (lambda p: p.mkdir(), r"is not a regular file"),
], ids=["missing", "world-readable", "group-writable", "empty", "short", "overlong", "non-ascii", "symlink", "dir"])
def test_a_token_file_that_cannot_be_trusted_is_refused_in_one_line(tmp_path: Path, setup, message: str) -> None:
    setup(token_path(tmp_path))
    with pytest.raises(TokenError, match=message) as caught:
        read_token(tmp_path)
    assert "\n" not in caught.value.message and "t" * 43 not in caught.value.message
    assert "flink-up" in (caught.value.hint or "")
