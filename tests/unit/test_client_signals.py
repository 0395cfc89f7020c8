"""flinklab.sqlclient.signals with real signals, in a child process (a guard ends the process it guards): SIGTERM and
SIGHUP run the clean-up and exit with 128 + the signal's number; a doubled delivery (as `timeout` and a terminal's
hangup deliver) is one; a second signal, or a clean-up that hangs past the grace, ends the process at once. A guard
for a script run holds Ctrl-C's clean-up to the same grace, still as a KeyboardInterrupt (exit status 130).

The clean-up that matters (closing the operation and the session on a real gateway) is tested live:
tests/live/test_client_signals_live.py."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

CHILD = """
import contextlib, os, signal, sys, threading, time
from flinklab.sqlclient.signals import SignalGuard, Terminated

mode, grace = sys.argv[1], float(sys.argv[2])
if mode == "nohup":
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
delivered = threading.Event()
deliver = (lambda terminated: delivered.set() or True) if mode == "deliver" else None
# "nested": the shell's shape, its guard inside the one sql-client.sh's script run sets up
outer = SignalGuard() if mode.startswith("nested") else contextlib.nullcontext()
try:
    with outer, SignalGuard(deliver, grace=grace, interrupts=mode.startswith("interrupt")) as guard:
        guard.on_signal(lambda: print("on_signal", flush=True))
        try:
            print("ready", flush=True)
            if mode == "deliver":
                delivered.wait(30)  # the block then ends normally: __exit__ raises what arrived
            else:
                time.sleep(30)
        finally:
            print("closing", flush=True)
            if mode.endswith("slow"):
                time.sleep(30)
            print("closed", flush=True)
except Terminated as exc:
    if mode in ("late", "nested-late"):  # a copy of the signal that comes once the guard is left, as it exits
        os.kill(os.getpid(), exc.signum)
        time.sleep(0.2)
    print("exit", exc.exit_status, flush=True)
    sys.exit(exc.exit_status)
except KeyboardInterrupt:
    if mode == "interrupt-late":
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)
    print("interrupted", flush=True)
    sys.exit(130)
print("not terminated", flush=True)
"""


class Child:
    def __init__(self, mode: str, grace: float = 5.0):
        self.proc = subprocess.Popen([sys.executable, "-c", CHILD, mode, str(grace)], stdout=subprocess.PIPE,
                                     text=True, start_new_session=True)
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline() == "ready\n"

    def signal(self, signum: int, times: int = 1) -> None:
        for _ in range(times):
            os.kill(self.proc.pid, signum)

    def end(self, timeout: float = 20.0) -> tuple[int, list[str], float]:
        """Exit status, the lines printed after `ready`, and the seconds it took to end from now."""
        started = time.monotonic()
        try:
            out, _ = self.proc.communicate(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        return self.proc.returncode, out.splitlines(), time.monotonic() - started


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_runs_the_clean_up_and_exits_with_128_plus_its_number(signum: int, status: int) -> None:
    child = Child("plain")
    child.signal(signum)
    rc, lines, seconds = child.end()
    assert (rc, lines) == (status, ["on_signal", "closing", "closed", f"exit {status}"])
    assert seconds < 2.0


@pytest.mark.parametrize("mode, signum, status, last", [("plain", signal.SIGTERM, 143, "exit 143"),
                                                        ("interrupt", signal.SIGINT, 130, "interrupted")])
def test_a_signal_delivered_twice_at_once_is_one(mode: str, signum: int, status: int, last: str) -> None:
    """`timeout` signals the command and then its process group; a terminal's Ctrl-C and a `kill -INT` of the group
    reach a script run twice: the clean-up must still run (Ctrl-C's as a KeyboardInterrupt, in a script run)."""
    child = Child(mode)
    child.signal(signum, times=2)
    rc, lines, seconds = child.end()
    assert (rc, lines) == (status, ["on_signal", "closing", "closed", last])
    assert seconds < 2.0


def test_a_second_signal_while_closing_exits_at_once() -> None:
    child = Child("slow")
    child.signal(signal.SIGTERM)
    time.sleep(1.0)  # past the window in which a second delivery is the same request
    child.signal(signal.SIGHUP)
    rc, lines, seconds = child.end()
    assert (rc, lines) == (129, ["on_signal", "closing"])
    assert seconds < 1.0


@pytest.mark.parametrize("mode, signum, status", [("slow", signal.SIGTERM, 143),
                                                  ("interrupt-slow", signal.SIGINT, 130)])
def test_a_clean_up_that_hangs_is_cut_off_after_the_grace(mode: str, signum: int, status: int) -> None:
    """A gateway that does not answer the close: the process still ends, with the signal's status (Ctrl-C's too,
    in a script run)."""
    child = Child(mode, grace=1.0)
    child.signal(signum)
    rc, lines, seconds = child.end()
    assert (rc, lines) == (status, ["on_signal", "closing"])
    assert 0.5 < seconds < 4.0


def test_a_delivery_taken_over_is_raised_when_the_block_ends() -> None:
    """The shell hands the signal to its prompt; if the prompt returns normally anyway, the guard still ends it."""
    child = Child("deliver")
    child.signal(signal.SIGHUP)
    rc, lines, _ = child.end()
    assert (rc, lines) == (129, ["on_signal", "closing", "closed", "exit 129"])


def test_a_hangup_ignored_from_the_start_stays_ignored() -> None:
    """`nohup sql-client.sh -f ...`: the terminal closing must not end the run."""
    child = Child("nohup")
    child.signal(signal.SIGHUP)
    time.sleep(0.5)
    assert child.proc.poll() is None
    child.signal(signal.SIGTERM)
    rc, lines, _ = child.end()
    assert (rc, lines) == (143, ["on_signal", "closing", "closed", "exit 143"])


def test_without_interrupts_ctrl_c_is_left_to_python() -> None:
    """The shell's guard: Ctrl-C there stops a statement and the prompt goes on (no grace, no callbacks)."""
    child = Child("plain")
    child.signal(signal.SIGINT)
    rc, lines, _ = child.end()
    assert (rc, lines) == (130, ["closing", "closed", "interrupted"])


@pytest.mark.parametrize("mode, signum, status, last", [("late", signal.SIGTERM, 143, "exit 143"),
                                                        ("nested-late", signal.SIGTERM, 143, "exit 143"),
                                                        ("interrupt-late", signal.SIGINT, 130, "interrupted")])
def test_a_copy_of_the_signal_after_the_guard_is_left_does_not_change_the_ending(mode: str, signum: int,
                                                                                  status: int, last: str) -> None:
    """A doubled delivery that comes late (a loaded machine): the process still exits as the first signal said, not
    killed by the signal's default action nor with a second KeyboardInterrupt raised while it reports the first."""
    child = Child(mode)
    child.signal(signum)
    rc, lines, _ = child.end()
    assert (rc, lines) == (status, ["on_signal", "closing", "closed", last])
