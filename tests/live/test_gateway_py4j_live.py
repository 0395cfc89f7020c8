"""The gateway JVM's py4j connections send without Nagle's algorithm (FlinklabNoDelay in FlinklabHelpers.java).

py4j writes an answer through an 8 KB buffer, so an answer over 8 KB is two writes, and with Nagle's algorithm on
the second waited for the Python side's delayed acknowledgement: 44 ms on every page of rows, plan or explanation
over 8 KB (`scripts/bench.py` prints the round trip beside a small answer's). Asserted here is the cause, each
connection's TCP_NODELAY as the JVM reports it, for the connections open when the helpers load and one opened later.
"""

from __future__ import annotations

import threading

import pytest

pytestmark = pytest.mark.live


def _connections(jvm):
    server = jvm.gateway.java_gateway_server
    field = server.getClass().getDeclaredField("connections")
    field.setAccessible(True)
    connections = field.get(server)
    return [connections.get(i) for i in range(connections.size())]


def _no_delay(connection) -> bool:
    return bool(connection.getSocket().getTcpNoDelay())


def test_every_py4j_connection_sends_without_nagle(in_process_service):
    jvm = in_process_service.jvm
    jvm.java_class("FlinklabWorker")  # the helpers are loaded (and the option set) by now
    before = _connections(jvm)
    assert before and all(_no_delay(c) for c in before)

    # a thread's call while this thread's connection is taken opens a new connection: the listener's business
    answers: list[tuple[int, bool]] = []
    hold = threading.Event()

    def other() -> None:
        text = str(jvm.jvm.org.apache.commons.lang3.StringUtils.repeat("ab", 20_000))
        answers.append((len(text), text == "ab" * 20_000))
        hold.set()

    worker = threading.Thread(target=other)
    busy = jvm.gateway._gateway_client.deque  # py4j's idle connections: take them all so the thread needs its own
    taken = list(busy)
    busy.clear()
    try:
        worker.start()
        assert hold.wait(60)
        worker.join(60)
    finally:
        busy.extend(taken)
    after = _connections(jvm)
    opened = [c for c in after if all(not c.equals(b) for b in before)]
    assert answers == [(40_000, True)]  # the 40 KB answer came whole
    assert opened, "the thread's call did not open a connection"
    assert all(_no_delay(c) for c in after)
