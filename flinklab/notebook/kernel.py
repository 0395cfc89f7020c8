"""The notebook's one gateway session per kernel, and what a `%%flink` cell runs on it.

The session is the shell's (flinklab.sqlclient.shell.executor.ShellSession): statements that print go through
the file runner's own path (the same `[INFO]` and `[ERROR]` text), a query is fed from its result pages into the
shell's fold on a thread while the kernel redraws one display. A heartbeat keeps the session alive between cells;
a session the gateway forgot is reopened (with a warning) before the next cell.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from flinklab.dbapi.connection import gateway_client
from flinklab.errors import FlinklabError, UsageError
from flinklab.flink.sql_split import split_statements, strip_comments
from flinklab.notebook.display import CountingFold, LastChanges, LiveDisplay, View, failed_line, status_line
from flinklab.settings import Settings
from flinklab.sqlclient.client import RUNTIME_MODE, guess_kind
from flinklab.sqlclient.printer import Printer
from flinklab.sqlclient.protocol import GatewayError
from flinklab.sqlclient.shell.executor import GatewayGone, ShellSession
from flinklab.sqlclient.shell.gateway import Heartbeat
from flinklab.sqlclient.shell.result import QueryResult
from flinklab.sqlclient.sqlfiles import read_sql


class CellOut:
    """The session's output stream: whatever sys.stdout is now (IPython gives each cell its own)."""

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()

    def isatty(self) -> bool:
        return False


@dataclass
class CellOptions:
    """A `%%flink` cell's options (see flinklab.notebook.magics)."""

    display: str | None = None
    max_rows: int = 1000
    refresh_ms: int = 500
    as_name: str | None = None
    init: Path | None = None
    lab: str | None = None
    save: str | None = None


@dataclass
class QueryOutcome:
    view: View
    count: int
    live: LiveDisplay
    status: str = ""
    interrupted: bool = False
    failed: bool = False


def read_token_file(path: Path) -> str:
    """The token in `path` (its first line), or a UsageError naming the file."""
    try:
        token = path.expanduser().read_text(encoding="utf-8").strip().splitlines()
    except OSError as exc:
        raise UsageError(f"Cannot read the token file {path}: {exc.strerror or exc}.",
                         "Name the file the gateway's token is in (flink-up writes gateway.token into its state "
                         "dir).") from None
    if not token or not token[0].strip():
        raise UsageError(f"The token file {path} is empty.", "Name the file the gateway's token is in.")
    return token[0].strip()


class KernelSession:
    """The kernel's connection: a gateway URL, its token, one session on it."""

    def __init__(self, settings: Callable[[], Settings] = Settings.from_env, out: TextIO | None = None):
        self._settings = settings
        self.out: Any = out or CellOut()
        self.url: str | None = None
        self.token: str | None = None
        self.shell: ShellSession | None = None
        self.heartbeat: Heartbeat | None = None
        self._target: tuple[str | None, Path | None] | None = None  # what %flink_connect was given
        self._init_files: list[Path] = []  # --init files, run again on a new session

    @property
    def settings(self) -> Settings:
        return self._settings()

    def connect(self, url: str | None = None, token_file: Path | None = None) -> str:
        """Open this kernel's session on the gateway at `url` (default: the one `flink-up` started, found as
        `sql-client.sh` finds it, token included); the previous one is closed. Returns the gateway's URL."""
        token = read_token_file(token_file) if token_file is not None else None
        client = gateway_client(self.settings, url, token)  # checks the cluster and the gateway: one-line errors
        try:
            token_source = client.api.token_source
            shell = ShellSession(client.url, {}, [], self.out, token=token_source)
            shell.open()
        finally:
            client.close()
        self.close()
        self.url, self.token, self.shell = client.url, token, shell
        self._target = (url, token_file)
        self.heartbeat = Heartbeat(client.url, self._lost, token=token_source).start(shell.handle)
        return client.url

    def _lost(self, gone: bool) -> None:
        if not gone and self.shell is not None:
            self.shell.lost = True

    def ensure(self) -> ShellSession:
        """The session, connected to the default gateway first if no `%flink_connect` ran; reopened (and said
        so) when the gateway forgot it."""
        if self.shell is None:
            again = self._target is not None
            self.connect(*(self._target or (None, None)))  # the token file is read again: a new gateway, a new token
            if again:
                self.out.write(f"[WARNING] A new session on the SQL gateway at {self.url}: what the last one held "
                               "(SETs, temporary tables) is gone; --init files run again.\n")
                for path in self._init_files:
                    self.run_init(path)
        assert self.shell is not None
        try:
            reopened = self.shell.reopen_if_lost()
        except GatewayGone:
            url = self.url
            self.close()  # the next cell connects again (to the same gateway)
            raise FlinklabError(f"The SQL gateway at {url} does not answer.",
                                "Start it again (`flink-up`), then run the cell again: it opens a new session.") \
                from None
        if reopened and self.heartbeat is not None:
            self.heartbeat.follow(self.shell.handle)
        return self.shell

    def close(self) -> None:
        if self.heartbeat is not None:
            self.heartbeat.stop()
            self.heartbeat = None
        if self.shell is not None:
            self.shell.close()
            self.shell = None

    # ---- a cell ----------------------------------------------------------------------------------------

    def run_init(self, path: Path) -> bool:
        """Run an init file in this session (as `sql-client.sh -i` runs one, silently); False when it failed (the
        `[ERROR]` printed). It runs again whenever the session has to be reopened."""
        shell = self.ensure()
        sql = read_sql(path)
        assert shell.session is not None
        if not shell.session.run_init(sql, self.out).ok:
            shell.printer.init_failed(path.resolve().as_uri())
            return False
        if path not in shell.init_files:
            shell.init_files.append(path)
        if path not in self._init_files:
            self._init_files.append(path)
        return True

    def run_cell(self, sql: str, options: CellOptions, show: Callable[..., Any]) -> QueryOutcome | None:
        """Each statement in turn, stopping at the first that fails; the last query's outcome (None if none)."""
        shell = self.ensure()
        if options.init is not None and not self.run_init(options.init):
            return None
        last: QueryOutcome | None = None
        for statement in split_statements(sql):
            if guess_kind(strip_comments(statement)) == "query":
                last = self.run_query(shell, statement, options, show)
                if last is None or last.failed or last.interrupted:
                    break
                continue
            try:
                outcome = shell.execute(statement)
            except KeyboardInterrupt:  # its operation was closed (its job cancelled) on the way out
                Printer(self.out).lines(["[INFO] Interrupted: the statement was cancelled."])
                break
            if not outcome.ok:
                break
        return last

    def run_query(self, shell: ShellSession, statement: str, options: CellOptions,
                  show: Callable[..., Any]) -> QueryOutcome | None:
        """A query in a live display, redrawn every `refresh_ms` while its pages arrive; interrupted, its operation
        is closed (its Flink job cancelled) and the cell ends with Flink's `Query terminated` line."""
        try:
            operation, result, pages, first = shell.start_query(statement)
        except GatewayError as exc:
            shell.printer.error(shell.reason(exc))
            return None
        streaming = shell.conf.get(RUNTIME_MODE, "streaming").strip().lower() == "streaming"
        display = options.display or ("update" if streaming else "table")
        # the result feeds both of the shell's stores; the display reads the one it shows
        result.table, result.changelog = CountingFold(options.max_rows), LastChanges(options.max_rows)
        view = View(display, first.columns, result.changelog if display == "append" else result.table)
        live = LiveDisplay(view, show)
        outcome = QueryOutcome(view, 0, live)
        thread = shell.feed(result, first, pages)
        try:
            live.draw(self._status(result, view, streaming))
            while thread.is_alive():
                thread.join(options.refresh_ms / 1000)
                live.draw(self._status(result, view, streaming))
        except KeyboardInterrupt:
            shell.stop_feed(result, thread, operation)
            outcome.interrupted = True
            outcome.count = view.store.changes
            outcome.status = f"Query terminated, received a total of {outcome.count} rows"
            live.draw(outcome.status)
            shell.printer.terminated(outcome.count)
            return outcome
        shell.stop_feed(result, thread, operation)
        outcome.count = view.store.changes
        if result.gone or result.error is not None:  # not "Running: ... so far" above the error, for ever
            outcome.status = failed_line(outcome.count)
            live.fail(outcome.status)
        else:
            outcome.status = self._status(result, view, streaming)
            live.draw(outcome.status)
        if result.gone:
            url = self.url
            self.close()  # the next cell connects again
            raise FlinklabError(f"The SQL gateway at {url} stopped answering while the query ran.",
                                "Start it again (`flink-up`), then run the cell again: it opens a new session.")
        if result.error is not None:
            shell.printer.error(result.error)
            outcome.failed = True
        return outcome

    @staticmethod
    def _status(result: QueryResult, view: View, streaming: bool) -> str:
        return status_line(view.store.changes, finished=result.finished, streaming=streaming,
                           shown=len(view.store))


def run_in_thread(target: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    """`target()` on a daemon thread; its result or exception lands in the returned dict."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["result"] = target()
        except BaseException as exc:  # noqa: BLE001 - handed to the kernel's thread
            box["error"] = exc

    thread = threading.Thread(target=run, name="flinklab-notebook", daemon=True)
    thread.start()
    return thread, box
