"""The gateway's warm-ups give way to learners (flinklab/gateway/warmup.py, Traffic): before each step a warm-up
waits until no learner statement executes and none ended in the last `quiet` seconds."""

from __future__ import annotations

import threading
import time

from flinklab.gateway.warmup import Traffic


def _waiter(traffic: Traffic) -> tuple[threading.Thread, threading.Event]:
    done = threading.Event()
    thread = threading.Thread(target=lambda: (traffic.wait_quiet(), done.set()), daemon=True)
    thread.start()
    return thread, done


def test_a_new_gateway_is_quiet_one_quiet_period_after_its_start() -> None:
    assert Traffic(quiet=0.0).wait_quiet() < 1.0
    made = time.monotonic()
    traffic = Traffic(quiet=0.3)
    traffic.wait_quiet()  # a statement that comes at once (the attach probe) has the JVM to itself
    assert time.monotonic() - made >= 0.3
    assert traffic.wait_quiet() < 0.1  # then it is quiet at once, until a statement runs


def test_a_warm_up_waits_while_any_statement_executes() -> None:
    traffic = Traffic(quiet=0.0)
    with traffic.busy():
        with traffic.busy():
            thread, done = _waiter(traffic)
            assert not done.wait(0.2)
        assert not done.wait(0.2), "one statement still executes"
    assert done.wait(5.0)
    thread.join(5.0)


def test_a_warm_up_waits_out_the_quiet_period_after_a_statement() -> None:
    traffic = Traffic(quiet=0.3)
    with traffic.busy():
        pass
    ended = time.monotonic()
    traffic.wait_quiet()
    assert time.monotonic() - ended >= 0.3  # the gaps between one call's statements pass as one


def test_a_statement_in_the_quiet_period_starts_it_again() -> None:
    traffic = Traffic(quiet=0.3)
    with traffic.busy():
        pass
    thread, done = _waiter(traffic)
    with traffic.busy():
        assert not done.wait(0.5), "a statement executes"
    ended = time.monotonic()
    assert done.wait(5.0)
    assert time.monotonic() - ended >= 0.3
    thread.join(5.0)


def test_a_failing_statement_ends_its_busy_time() -> None:
    traffic = Traffic(quiet=0.0)
    try:
        with traffic.busy():
            raise ValueError("the statement failed")
    except ValueError:
        pass
    assert traffic.wait_quiet() < 1.0
