"""A watch on the cluster while statements run: when its REST endpoint stops answering (a dead JobManager), the
client's calls are aborted at once instead of the gateway retrying for minutes.

Used by `flinklab run` around all of its steps (which may run at once, on threads) and by `sql-client.sh`.
"""

from __future__ import annotations

import signal
import threading
from typing import Callable

from flinklab.flink.rest import FlinkRest, RestUnavailable


class ClusterWatch:
    """Poll `rest_url` on a thread while the `with` block runs; after MISSES unanswered polls in a row call
    `on_gone` once (it aborts the client: every statement running through it stops at its next call) and set
    `gone`. Off when the cluster's URL is unknown (a gateway named by URL)."""

    POLL_SECONDS = 1.0
    MISSES = 3  # consecutive unanswered polls: one slow answer of a busy JobManager is not a death

    def __init__(self, rest_url: str | None, on_gone: Callable[[], None] = lambda: None,
                 rest: Callable[[float], FlinkRest] | None = None):
        self.rest_url = rest_url
        self.on_gone = on_gone
        #: builds the REST client (with a timeout) for the URL: a `--shared` cluster needs the client certificate
        self._make_rest = rest or (lambda timeout: FlinkRest(str(rest_url), timeout=timeout))
        self._rest: FlinkRest | None = None
        self.gone = False
        self._stop = threading.Event()
        self._fire = threading.Lock()  # stopping and firing exclude each other: no on_gone after __exit__
        self._thread: threading.Thread | None = None

    def __enter__(self) -> ClusterWatch:
        if self.rest_url:
            self._rest = self._make_rest(self.POLL_SECONDS * 2)  # here: a bad TLS dir is this thread's error
            self._thread = threading.Thread(target=self._watch, name="flinklab-cluster-watch", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._fire:
            self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _answers(self, rest: FlinkRest) -> bool:
        try:
            rest.get("/config")  # served by the REST endpoint itself: cheap even for a JobManager under load
            return True
        except RestUnavailable:
            return False

    def _watch(self) -> None:
        # Ctrl-C, SIGTERM and SIGHUP go to the main thread, where they interrupt the call it waits in: delivered
        # to this thread, Python would run their handlers only once the main thread's call returned
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
        rest = self._rest
        assert rest is not None
        misses = 0
        while not self._stop.wait(self.POLL_SECONDS):
            misses = 0 if self._answers(rest) else misses + 1
            if misses >= self.MISSES:
                with self._fire:
                    if not self._stop.is_set():
                        self.gone = True
                        self.on_gone()
                return
