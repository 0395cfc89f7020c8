"""Every poll in flinklab is a :class:`Wait` (testcontainers' wait strategies): what is awaited, a timeout, an
interval. A wait runs a `check` until it returns something other than None (or False), and either returns that
or, at the timeout, what the caller decides (`poll` returns None; `until` raises :class:`WaitTimedOut`). A check
that knows waiting is pointless (a process died) raises its own error, which ends the wait at once.

Also here, what a wait that failed reports: :class:`ClusterStartError` (the log's last lines ride along for the CLI
to print), a log's last lines, an error on one line. The cluster's REST conditions are flinklab.flink.readiness.

Use (a deadline loop becomes three lines)::

    done = Wait("the gateway to stop", timeout=15).poll(lambda: not alive() or None)
    if done is None: ...  # timed out
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from flinklab.errors import ClusterError

T = TypeVar("T")

#: Seconds between checks by default: most checks are one local call (a refused connection, a /proc read) that
#: costs nothing, and a short interval keeps a start from sleeping past the moment it is ready.
POLL_INTERVAL = 0.05


class WaitTimedOut(ClusterError):
    """`Wait.until` ran out of time: the message names what was awaited and what was seen last."""

    def __init__(self, wait: Wait, seen: str = ""):
        super().__init__(f"Timed out after {wait.timeout:.0f}s waiting for {wait.what}" + (f": {seen}" if seen else "")
                         + ".")
        self.wait = wait
        self.seen = seen


@dataclass(frozen=True)
class Wait:
    """Wait for `what` (words completing "waiting for ..."), checking every `interval` seconds, at most `timeout`."""

    what: str
    timeout: float
    interval: float = POLL_INTERVAL

    def poll(self, check: Callable[[], T | None], *, waiting: Callable[[], None] | None = None) -> T | None:
        """Call `check` until it returns neither None nor False; return that, or None at the timeout. `waiting` is
        called once, when the first check was not ready (to say "waiting for ..." only when there is a wait)."""
        deadline = time.monotonic() + self.timeout
        while True:
            value = check()
            if value is not None and value is not False:
                return value
            if waiting is not None:
                waiting()
                waiting = None
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            time.sleep(min(self.interval, left))

    def until(self, check: Callable[[], T | None], *, seen: Callable[[], str] | None = None,
              waiting: Callable[[], None] | None = None) -> T:
        """As :meth:`poll`, but the timeout raises WaitTimedOut, naming what `seen()` says was seen last."""
        value = self.poll(check, waiting=waiting)
        if value is None:
            raise WaitTimedOut(self, seen() if seen is not None else "")
        return value


class ClusterStartError(ClusterError):
    """The cluster did not become ready; `log_path` and `log_tail` say where to look and what it said last."""

    def __init__(self, message: str, hint: str | None = None, *, log_path: str = "", log_tail: Sequence[str] = ()):
        super().__init__(message, hint)
        self.log_path = log_path
        self.log_tail = list(log_tail)


def _is_stack_frame(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith("at ") or (stripped.startswith("... ") and stripped.endswith(" more"))


def tail_lines(path: Path, n: int = 5, skip_stack_frames: bool = True) -> list[str]:
    """The last `n` non-empty lines of a text file ([] when it does not exist).

    Java stack frames (`at ...`, `... 3 more`) are skipped by default: the `Caused by:` lines say why."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - 64 * 1024))
            text = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return []
    lines = [line for line in text.splitlines() if line.strip()]
    if skip_stack_frames:
        lines = [line for line in lines if not _is_stack_frame(line)]
    return lines[-n:]


def one_line(exc: BaseException | str, limit: int = 120) -> str:
    """An error's text on one line (whitespace collapsed), cut to `limit` characters for messages."""
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
