"""Every poll is a Wait (flinklab/flink/waiting.py): what it returns, when it gives up, what it says."""

from __future__ import annotations

import pytest

from flinklab.errors import ClusterError
from flinklab.flink.waiting import Wait, WaitTimedOut


def test_poll_returns_the_first_ready_value_and_says_waiting_once() -> None:
    answers = iter([None, False, None, "ready"])
    said: list[str] = []
    value = Wait("a thing", timeout=5, interval=0).poll(lambda: next(answers), waiting=lambda: said.append("w"))
    assert value == "ready"
    assert said == ["w"]


def test_a_check_ready_at_once_says_nothing() -> None:
    said: list[str] = []
    assert Wait("a thing", timeout=5).poll(lambda: 0 or True, waiting=lambda: said.append("w")) is True
    assert said == []


def test_poll_gives_none_at_the_timeout_and_until_raises_naming_what_was_seen() -> None:
    calls = []
    assert Wait("a thing", timeout=0.05, interval=0.01).poll(lambda: calls.append(1)) is None
    assert len(calls) >= 2  # it checked more than once before giving up
    with pytest.raises(WaitTimedOut) as info:
        Wait("the gateway to answer", timeout=0.02, interval=0.01).until(lambda: None, seen=lambda: "refused")
    assert isinstance(info.value, ClusterError)
    assert info.value.message == "Timed out after 0s waiting for the gateway to answer: refused."


def test_a_check_that_raises_ends_the_wait_at_once() -> None:
    def dead() -> None:
        raise ClusterError("The process exited.")

    with pytest.raises(ClusterError, match="exited"):
        Wait("a process", timeout=60).poll(dead)
