"""Operations and their result tokens, with rows the gateway makes itself (no JVM): Flink's ResultFetcher rules."""

from __future__ import annotations

import json
import threading

import pytest

from flinklab.gateway.operations import FetchError, Operation, OperationError
from flinklab.gateway.results import StaticRows, string_column
from flinklab.sqlclient.printer import reason_from_server


def finished(work, describe=lambda exc: f"x.Boom: {exc}") -> Operation:
    operation = Operation(work, describe).start()
    operation.wait(10)
    operation._thread.join(10)
    return operation


def rows_of(page, row_format: str = "JSON") -> list:
    return json.loads(page.data(row_format))


def test_a_result_is_one_payload_then_eos_and_the_last_page_can_be_fetched_again() -> None:
    source = StaticRows([string_column("key"), string_column("value")], [["a", "1"], ["b", None]])
    operation = finished(lambda: source)
    assert operation.status == "FINISHED"
    kind, page = operation.fetch(0)
    assert kind == "PAYLOAD" and rows_of(page) == [{"kind": "INSERT", "fields": ["a", "1"]},
                                                    {"kind": "INSERT", "fields": ["b", None]}]
    again_kind, again = operation.fetch(0)  # a client that lost the answer asks for the same token again
    assert (again_kind, rows_of(again, "PLAIN_TEXT")) == ("PAYLOAD", rows_of(page))
    assert operation.fetch(1)[0] == "EOS"
    with pytest.raises(FetchError, match="Expecting token to be 1 or 0, but found 5."):
        operation.fetch(5)


def test_not_ready_while_the_statement_runs() -> None:
    release = threading.Event()

    def slow() -> StaticRows:
        release.wait(10)
        return StaticRows.ok()

    operation = Operation(slow, str).start()
    kind, page = operation.fetch(0)
    assert kind == "NOT_READY" and page.count == 0 and operation.status == "RUNNING"
    release.set()
    operation.wait(10)
    kind, page = operation.fetch(0)
    assert kind == "PAYLOAD" and rows_of(page) == [{"kind": "INSERT", "fields": ["OK"]}]


def test_a_failed_statement_is_an_error_at_fetch_with_flinks_cause_chain() -> None:
    def fails() -> StaticRows:
        raise RuntimeError("no such table")

    operation = finished(fails)
    assert operation.status == "ERROR"
    with pytest.raises(OperationError) as info:
        operation.fetch(0)
    text = info.value.text
    assert text.startswith("org.apache.flink.table.gateway.service.utils.SqlExecutionException: Failed to execute "
                           f"the operation {operation.handle}.")
    assert reason_from_server(text) == "x.Boom: no such table"


def test_a_finished_operation_cannot_be_cancelled_but_can_be_closed() -> None:
    operation = finished(StaticRows.ok)
    with pytest.raises(FetchError, match="from FINISHED to CANCELED"):
        operation.cancel()
    operation.close()
    assert operation.status == "CLOSED"
    with pytest.raises(FetchError, match="in CLOSED status"):
        operation.fetch(0)


def test_the_status_long_poll_answers_when_the_operation_ends_not_when_its_wait_runs_out() -> None:
    import time

    release = threading.Event()

    def slow() -> StaticRows:
        release.wait(10)
        return StaticRows.ok()

    operation = Operation(slow, str).start()
    started = time.monotonic()
    operation.wait_ended(0.2)  # still running: the wait runs out
    assert operation.status == "RUNNING" and time.monotonic() - started >= 0.2
    threading.Timer(0.3, release.set).start()
    started = time.monotonic()
    operation.wait_ended(10)
    assert operation.status == "FINISHED" and time.monotonic() - started < 5


class ClosableRows(StaticRows):
    closed = False

    def close(self) -> None:
        self.closed = True


def test_an_operation_closed_while_its_statement_is_submitted_stops_what_it_started() -> None:
    """A client closed it (Ctrl-C, SIGTERM) before the statement had its result: the query's rows (and so its job)
    are stopped once they are there, not left running with no operation to stop them."""
    release = threading.Event()
    source = ClosableRows([string_column("x")], [["1"]])

    def submitting() -> StaticRows:
        release.wait(10)
        return source

    operation = Operation(submitting, str).start()
    assert operation.fetch(0)[0] == "NOT_READY"
    operation.close()
    assert not source.closed  # nothing to stop yet
    release.set()
    operation._thread.join(10)
    assert source.closed and operation.status == "CLOSED"
