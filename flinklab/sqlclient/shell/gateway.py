"""What the shell asks of the gateway beyond what the file runner needs: heartbeats and completion.

Flink's REST protocol has both (`POST /sessions/:handle/heartbeat`, `GET /sessions/:handle/complete-statement`);
the file runner never needed them, so they live here, on the same client class.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from flinklab.errors import FlinklabError
from flinklab.sqlclient.protocol import GatewayClient, GatewayError

#: How often the shell tells the gateway its session is still wanted (the gateway forgets an idle session after
#: 10 minutes; Flink's client beats every minute). Short, so a gateway that died is noticed at the prompt.
HEARTBEAT_SECONDS = 5.0  # three missed: 15 s without an answer (a busy machine's gateway is not a dead one)


class ShellApi(GatewayClient):
    """The gateway client with the two calls of an interactive session (and `-s NAME` as its sessions' name)."""

    session_name: str | None = None

    def open_session(self, properties: Mapping[str, str] | None = None, name: str | None = None) -> str:
        return super().open_session(properties, name or self.session_name)

    def heartbeat(self, session: str) -> None:
        self._call("POST", self._v(f"/sessions/{session}/heartbeat"), {})

    def complete(self, session: str, statement: str, position: int) -> list[str]:
        answer = self._call("GET", self._v(f"/sessions/{session}/complete-statement"),
                            {"statement": statement, "position": position})
        return [str(c) for c in answer.get("candidates") or []]


class Heartbeat:
    """Beat for a session on a thread of its own (its own HTTP pool), until stopped.

    `on_lost(gone)` is called when a beat fails: `gone` is True (once) when no gateway answered MISSES beats in a
    row, False when the gateway answers but has forgotten the session (restarted, or the machine slept past the
    gateway's idle timeout).
    """

    MISSES = 3  # a gateway busy for one beat is not a dead one

    def __init__(self, url: str, on_lost: Callable[[bool], None], interval: float = HEARTBEAT_SECONDS,
                 token: Callable[[], str | None] | None = None):
        self.api = ShellApi(url, timeout=max(2.0, interval), token=token)
        self.on_lost = on_lost
        self.interval = interval
        self.handle: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="flinklab-shell-heartbeat", daemon=True)

    def start(self, handle: str) -> Heartbeat:
        self.handle = handle
        self._thread.start()
        return self

    def follow(self, handle: str) -> None:
        """Beat for `handle` from now on (the shell opened a new session)."""
        self.handle = handle

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=self.interval * 2)
        self.api.close()

    def _run(self) -> None:
        misses = 0
        while not self._stop.wait(self.interval):
            handle = self.handle
            if handle is None:
                continue
            try:
                self.api.heartbeat(handle)
                misses = 0
            except GatewayError:
                misses = 0
                if handle == self.handle:  # not a session the shell has just replaced
                    self.handle = None
                    self.on_lost(False)
            except FlinklabError:
                misses += 1
                if misses >= self.MISSES:
                    self.on_lost(True)
                    return
