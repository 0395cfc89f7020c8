"""The Flink REST client (flinklab.flink.rest) against a local stand-in server: what it sends, and that every way
of not getting a JSON answer is RestUnavailable naming the URL (never another exception)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler

import pytest
from helpers.env import free_port
from helpers.standin import JSON, Answer, serve

from flinklab.flink.rest import FlinkRest, RestUnavailable


def _answer(request: BaseHTTPRequestHandler) -> Answer:
    """/overview: JSON; /missing: 404; /text: not JSON; anything else: the path it was asked and its Connection."""
    if request.path == "/overview":
        return 200, JSON, b'{"taskmanagers": 1, "flink-version": "2.2.1"}'
    if request.path == "/missing":
        return 404, JSON, b'{"errors": ["Not found: /missing"]}'
    if request.path == "/text":
        return 200, JSON, b"<html>not Flink</html>"
    return 200, JSON, b'{"path": "%s", "connection": "%s"}' % (request.path.encode(),
                                                              str(request.headers.get("Connection")).encode())


@pytest.fixture
def stand_in() -> Iterator[str]:
    with serve(_answer) as url:
        yield url


@pytest.fixture
def not_http() -> Iterator[str]:
    """A port that answers every connection with a line that is not HTTP, then closes it."""
    listener = socket.create_server(("127.0.0.1", 0))

    def answer_ssh() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.recv(4096)
                conn.sendall(b"SSH-2.0-OpenSSH_9.2\r\n")

    threading.Thread(target=answer_ssh, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()


def test_a_json_answer_is_returned_for_the_path_and_query_as_given(stand_in: str) -> None:
    rest = FlinkRest(stand_in + "/")
    assert rest.overview() == {"taskmanagers": 1, "flink-version": "2.2.1"} and rest.is_up()
    assert rest.get("/jobs/x?mode=y") == {"path": "/jobs/x?mode=y", "connection": "close"}


def test_an_error_status_is_unavailable_with_its_status(stand_in: str) -> None:
    with pytest.raises(RestUnavailable, match=r"^http://127\.0\.0\.1:\d+/missing: HTTP Error 404: Not Found$"):
        FlinkRest(stand_in).get("/missing")


def test_an_answer_that_is_not_json_is_unavailable(stand_in: str) -> None:
    with pytest.raises(RestUnavailable, match="/text: Expecting value"):
        FlinkRest(stand_in).get("/text")


def test_a_server_that_is_not_http_is_unavailable(not_http: str) -> None:
    rest = FlinkRest(not_http, timeout=5)
    with pytest.raises(RestUnavailable, match=r"/overview: "):
        rest.overview()
    assert not rest.is_up()


def test_nothing_listening_and_a_bad_url_are_unavailable() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(RestUnavailable, match=r"Connection refused"):
        FlinkRest(url, timeout=2).overview()
    for bad in ("127.0.0.1:8081", "http://127.0.0.1:99999", "ftp://127.0.0.1:21"):
        with pytest.raises(RestUnavailable, match=bad.split(":")[0]):
            FlinkRest(bad).overview()


def _gateway_info(product: bytes) -> Callable[[BaseHTTPRequestHandler], Answer]:
    def answer(request: BaseHTTPRequestHandler) -> Answer:
        if request.path == "/v1/info":
            return 200, JSON, b'{"productName": "%s", "version": "2.2.1"}' % product
        return 404, JSON, b'{"errors": ["Not found"]}'
    return answer


def test_the_gateway_answers_only_as_flinks_sql_gateway(not_http: str) -> None:
    """flink-up's wait for its gateway (environment.gateway.answers): Flink's /v1/info answers; another product, a
    port that is not HTTP and a closed port do not, and none of them raises."""
    from flinklab.environment.gateway import answers

    with serve(_gateway_info(b"Apache Flink")) as url:
        assert answers(url)
    with serve(_gateway_info(b"Something Else")) as url:
        assert not answers(url)
    assert not answers(not_http, timeout=2.0)
    assert not answers(f"http://127.0.0.1:{free_port()}", timeout=1.0)
