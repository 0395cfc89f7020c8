"""SIGTERM and SIGHUP end `sql-client.sh` as Flink's client ends on them: the running operation and the session are
closed on the gateway (so a query's job is cancelled, not left RUNNING until the gateway's idle timeout), then the
process exits with the conventional status, 128 + the signal's number, printing nothing more.

Flink's client does this from a JVM shutdown hook; here the signal is turned into an exception, `Terminated`, in the
main thread (where Python runs signal handlers), so the `finally` blocks that already close the operation and the
session on Ctrl-C run on the way out. `Terminated` is not a KeyboardInterrupt: nothing that treats Ctrl-C as "stop
this statement, go on" (the shell's prompt, its statements) catches it, and no `Query terminated` line is printed.

Closing must not hang on a gateway that does not answer: once a signal arrived, whatever has not ended after
GRACE_SECONDS is ended with os._exit, and a second signal ends the process at once. A guard made with
`interrupts=True` (a script run, which Ctrl-C ends) holds Ctrl-C to the same bound: SIGINT is still raised as
KeyboardInterrupt (the `Query terminated` line, exit status 130), and the clean-up it starts is cut off alike.
Signals that arrive together (`timeout` signals the command and then its process group; a terminal's hangup reaches
the whole foreground group) count as one.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType

#: The signals a guard turns into Terminated (SIGINT stays Python's KeyboardInterrupt: Ctrl-C's own path).
SIGNALS = (signal.SIGTERM, signal.SIGHUP)
#: How long each clean-up call (close the operation, close the session) may wait on the gateway after a signal.
CLOSE_SECONDS = 2.0
#: After a signal, the process exits within this long whatever still waits.
GRACE_SECONDS = 5.0
#: A second signal within this long of the first is the same request to end (see the module's docstring).
SAME_SIGNAL_SECONDS = 0.5


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: end the process with `exit_status` once the gateway's session is closed.

    A BaseException, as KeyboardInterrupt is, so that `except Exception` (a statement's error handling) lets it
    through."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        return 128 + self.signum


class SignalGuard:
    """While the `with` block runs on the main thread, SIGTERM and SIGHUP raise Terminated there (at once, in
    whatever call the main thread waits on), after running the `on_signal` callbacks (e.g. shortening the gateway
    client's timeout for the clean-up calls).

    `deliver(terminated)` may take the delivery over (a running prompt_toolkit application is told to exit with it,
    rather than having an exception raised through its event loop): when it returns True, nothing is raised by the
    handler, and the block is expected to end with `check()`. If the block ends by another exception (or none)
    after a signal arrived, `Terminated` is raised from `__exit__`: the process was told to end.

    Meant for a process that ends on the signal: once one arrived, the process exits within GRACE_SECONDS. Outside
    the main thread the guard does nothing (signal handlers can only be set there), and a signal the process was
    started ignoring (`nohup`) stays ignored."""

    def __init__(self, deliver: Callable[[Terminated], bool] | None = None, *, grace: float = GRACE_SECONDS,
                 interrupts: bool = False):
        self.deliver = deliver
        self.grace = grace
        self.interrupts = interrupts
        self.received: Terminated | None = None
        self._callbacks: list[Callable[[], None]] = []
        self._previous: dict[int, object] = {}
        self._at: float | None = None  # when the first SIGTERM / SIGHUP arrived
        self._interrupted_at: float | None = None  # when the first Ctrl-C did (a guard with `interrupts`)

    def on_signal(self, callback: Callable[[], None]) -> None:
        """Run `callback` when the first signal arrives, before Terminated is raised (from the handler: keep it
        short and non-blocking)."""
        self._callbacks.append(callback)

    def check(self) -> None:
        """Raise Terminated if a signal arrived (for a `deliver` that did not raise it)."""
        if self.received is not None:
            raise self.received

    def __enter__(self) -> SignalGuard:
        if threading.current_thread() is threading.main_thread():
            for signum in SIGNALS:
                if signal.getsignal(signum) is signal.SIG_IGN:
                    continue  # `nohup sql-client.sh ...`: a hangup was meant not to end it
                self._previous[signum] = signal.signal(signum, self._handle)
            # Ctrl-C: only where Python's own handler is in place (not one the process was started ignoring)
            if self.interrupts and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                self._previous[signal.SIGINT] = signal.signal(signal.SIGINT, self._interrupt)
        return self

    def __exit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
        # once a signal arrived the process is on its way out (the watchdog bounds it): a late copy of that signal
        # (a doubled delivery the handler did not see in time) must not then kill it with the signal's default
        # action, or raise a second KeyboardInterrupt in the code that reports the first; so too when an inner
        # guard's Terminated passes through this one (the shell's guard inside the script run's)
        ending = self._at is not None or self._interrupted_at is not None or isinstance(exc, Terminated)
        for signum, previous in self._previous.items():
            signal.signal(signum, signal.SIG_IGN if ending else previous)  # type: ignore[arg-type]
        self._previous.clear()
        if self.received is not None and exc is not self.received:
            raise self.received  # the block ended some other way (e.g. writing to a hung-up terminal failed)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self._repeated(self._at, signum):
            return
        self.received = Terminated(signum)
        self._at = time.monotonic()
        self._closing(self.received.exit_status)
        if self.deliver is not None and self.deliver(self.received):
            return
        raise self.received

    def _interrupt(self, signum: int, frame: FrameType | None) -> None:
        """Ctrl-C in a script run: KeyboardInterrupt, as without the guard, with the clean-up held to the grace."""
        if self._repeated(self._interrupted_at, signum):
            return
        self._interrupted_at = time.monotonic()
        self._closing(128 + signum)
        raise KeyboardInterrupt

    @staticmethod
    def _repeated(first_at: float | None, signum: int) -> bool:
        """After a first signal (at `first_at`), another: True for the same request delivered twice (nothing to do);
        a later one, asked again while closing, ends the process now."""
        if first_at is None:
            return False
        if time.monotonic() - first_at < SAME_SIGNAL_SECONDS:
            return True
        os._exit(128 + signum)

    def _closing(self, exit_status: int) -> None:
        """The process ends now: exit with `exit_status` after the grace whatever still waits; run the callbacks."""
        watchdog = threading.Timer(self.grace, os._exit, (exit_status,))
        watchdog.daemon = True
        watchdog.start()
        for callback in self._callbacks:
            callback()
