"""The shell's executor: one gateway session, statements run on it, and results handed to the printer (tableau)
or to a full-screen view (the `table` and `changelog` result modes).

Everything but a query in a view goes through ClientSession.execute, the file runner's own path, so the output
is the file runner's byte for byte. A query in a view is fed from the same result pages; leaving the view of a
query still running closes its operation, which cancels its job.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TextIO

from flinklab.errors import FlinklabError
from flinklab.flink.sql_split import strip_comments
from flinklab.sqlclient import tableau
from flinklab.sqlclient.client import (
    MAX_COLUMN_WIDTH,
    RUNTIME_MODE,
    VERBOSE,
    ClientSession,
    StatementOutcome,
    cells,
    column_type,
    guess_kind,
)
from flinklab.sqlclient.printer import Printer, reason_from_server
from flinklab.sqlclient.protocol import GatewayError, NoGatewayError, Page
from flinklab.sqlclient.shell.fold import DEFAULT_MAX_ROWS, TableFold
from flinklab.sqlclient.shell.gateway import ShellApi
from flinklab.sqlclient.shell.result import QueryResult
from flinklab.sqlclient.shell.validate import (
    Verdict,
    explain_statement,
    physical_plan,
    scanned_tables,
    verdict,
    with_options,
)
from flinklab.sqlclient.shell.views import modes
from flinklab.sqlclient.shell.views.base import ResultView
from flinklab.sqlclient.sqlfiles import read_sql

MAX_TABLE_ROWS = "sql-client.execution.max-table-result.rows"
MSG_RESULT_QUIT = "[INFO] Result retrieval cancelled."
MSG_INIT_MISSING = ("[WARNING] SQL file {path} does not exist; the shell opens without it (its tables are not "
                    "defined). Write it, then QUIT and open the shell again, or run its statements here.")
_SHORT_KINDS = {"INSERT": "+I", "UPDATE_BEFORE": "-U", "UPDATE_AFTER": "+U", "DELETE": "-D"}


class GatewayGone(FlinklabError):
    """No gateway answers any more: the shell ends (exit 2)."""

    def __init__(self, url: str):
        super().__init__(f"The SQL gateway at {url} stopped answering; the shell ends.",
                         "Start it again with `flink-up`, then `sql-client.sh`.")


def type_text(column: Mapping[str, object]) -> str:
    """A result column's type as Flink's DataType prints it (INT, STRING, DECIMAL(10, 2), TIMESTAMP(3) NOT NULL)."""
    logical = column.get("logicalType") or {}
    assert isinstance(logical, Mapping)
    root = str(logical.get("type", "VARCHAR"))
    names = {"INTEGER": "INT", "TIMESTAMP_WITHOUT_TIME_ZONE": "TIMESTAMP", "TIMESTAMP_WITH_LOCAL_TIME_ZONE":
             "TIMESTAMP_LTZ", "TIME_WITHOUT_TIME_ZONE": "TIME", "TIMESTAMP_WITH_TIME_ZONE": "TIMESTAMP WITH TIME ZONE"}
    text = names.get(root, root)
    length, precision, scale = logical.get("length"), logical.get("precision"), logical.get("scale")
    if root == "VARCHAR" and length in (None, 2147483647):
        text = "STRING"
    elif length is not None:
        text += f"({length})"
    elif root == "DECIMAL":
        text += f"({precision}, {scale})"
    elif precision is not None:
        text += f"({precision})"
    if logical.get("nullable") is False:
        text += " NOT NULL"
    return text


def _changes(page: Page) -> list[tuple[str, list[str]]]:
    return [(_SHORT_KINDS.get(r["kind"], "+I"), cells(r)) for r in page.rows]


class ShellSession:
    """The shell's gateway session: opened with `-D` options, set up by the `-i` files, reopened when lost."""

    def __init__(self, url: str, defines: Mapping[str, str], init_files: Sequence[Path], out: TextIO,
                 token: Callable[[], str | None] | None = None):
        self.url = url
        self.token = token
        self.defines = dict(defines)
        self.init_files = list(init_files)
        self.out = out
        self.printer = Printer(out)
        self.api = ShellApi(url, token=token)
        self.session: ClientSession | None = None
        self.lost = False  # set by the heartbeat: the gateway forgot the session

    @property
    def handle(self) -> str:
        assert self.session is not None
        return self.session.handle

    @property
    def conf(self) -> dict[str, str]:
        return self.session.conf if self.session is not None else {}

    def open(self) -> bool:
        """Open a session and run the `-i` files on it, silently; False (the [ERROR] printed) when one fails.

        After each file, Flink's `Successfully initialized from sql script: …` line (SqlClient.openCli prints it
        before the prompt, as the file runner does before `-f`). An `-i` file that does not exist is skipped with
        one line saying so: a lab's workspace starts without `ddl.sql`, and the shell is where a learner looks
        around before writing it (a `-f` run still fails on it, as Flink's client does)."""
        self.session = ClientSession(self.api, self.defines)
        self.lost = False
        for path in self.init_files:
            if not path.exists() and not path.is_symlink():
                self.out.write(f"{MSG_INIT_MISSING.format(path=path)}\n")
                self.out.flush()
                continue
            result = self.session.run_init(read_sql(path), self.out)
            if not result.ok:
                self.printer.init_failed(str(path))
                return False
            self.printer.initialized(str(path))
        return True

    def reopen_if_lost(self) -> bool:
        """Before a statement: make sure the gateway still knows the session (one cheap call), else open a new
        one, say so, and run the `-i` files again. Raises GatewayGone when no gateway answers. True if reopened."""
        try:
            if not self.lost:
                self.api.heartbeat(self.handle)
        except GatewayError:
            self.lost = True
        except FlinklabError:
            raise GatewayGone(self.url) from None
        if self.lost:
            self.out.write("[WARNING] The gateway no longer knows this shell's session (was it restarted?); "
                           "opening a new one and running the -i files again.\n")
            self.out.flush()
            self.open()
            return True
        return False

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
        self.api.close()

    # ---- statements -------------------------------------------------------------------------------------

    def view_for(self, statement: str) -> type[ResultView] | None:
        """The view a statement opens: a query's in a result mode that has one (views.modes); None: it prints."""
        if guess_kind(strip_comments(statement)) != "query":
            return None
        return modes.view_for(self.conf)

    def execute(self, statement: str) -> StatementOutcome:
        """Run a statement that prints (the file runner's path). Ctrl-C propagates after its operation closed."""
        assert self.session is not None
        return self.session.execute(statement, self.printer, interactive=True)

    def reason(self, exc: GatewayError) -> str:
        """The error text the shell prints, as the file runner's: with `sql-client.verbose` the exception chain
        as Flink's client holds it (GatewayError.client_side), else the root cause."""
        verbose = self.conf.get(VERBOSE, "false").strip().lower() == "true"
        return exc.client_side if verbose else reason_from_server(exc.server_side)

    def start_query(self, statement: str) -> tuple[str, QueryResult, Iterator[Page], Page]:
        """Submit a query for a view: its operation, an empty result, its pages (on a fetching client of their
        own) and the first page. Raises GatewayError when the planner rejects it."""
        operation = self.api.execute(self.handle, statement)
        fetcher = ShellApi(self.url, token=self.token)
        pages = fetcher.pages(self.handle, operation)
        try:
            first = next(p for p in pages if p.result_type != "NOT_READY")
        except BaseException:
            fetcher.close()
            self._close_operation(operation)
            raise
        result = QueryResult([column_type(c) for c in first.columns], [type_text(c) for c in first.columns],
                             self._int(MAX_COLUMN_WIDTH, tableau.DEFAULT_MAX_COLUMN_WIDTH),
                             table=TableFold(self._int(MAX_TABLE_ROWS, DEFAULT_MAX_ROWS)), fetcher=fetcher)
        return operation, result, pages, first

    def feed(self, result: QueryResult, first: Page, pages: Iterator[Page]) -> threading.Thread:
        """Feed the result's stores from its pages on a thread, until the end, a failure or `stop_feed`."""

        def run() -> None:
            try:
                result.apply(_changes(first))
                if first.result_type == "EOS":
                    result.finished = True
                    return
                for page in pages:
                    result.apply(_changes(page))
                    if page.result_type == "EOS":
                        result.finished = True
            except NoGatewayError:
                result.gone = True
            except GatewayError as exc:
                result.error = self.reason(exc)
            except Exception:  # noqa: BLE001 - stopped by stop_feed (the client aborted)
                pass

        thread = threading.Thread(target=run, name="flinklab-shell-fetch", daemon=True)
        thread.start()
        return thread

    def stop_feed(self, result: QueryResult, thread: threading.Thread, operation: str) -> None:
        """Stop fetching and close the operation (which cancels the query's job when it still runs)."""
        fetcher = result.fetcher
        if fetcher is not None:
            fetcher.abort(lambda: RuntimeError("result retrieval cancelled"))
        self._close_operation(operation)
        thread.join(timeout=5.0)
        if fetcher is not None:
            fetcher.close()

    def rows(self, statement: str) -> list[list[str]]:
        """The rows of a statement that answers a small table (EXPLAIN, SHOW CREATE TABLE), its operation closed.
        Raises GatewayError when the statement fails."""
        operation = self.api.execute(self.handle, statement)
        try:
            return [cells(row) for page in self.api.pages(self.handle, operation) for row in page.rows]
        finally:
            self._close_operation(operation)

    def validate(self, statement: str) -> Verdict:
        """What `statement` would do, from the planner's EXPLAIN and its sources' options, without running it.
        Raises GatewayError when the planner rejects it."""
        kind = guess_kind(strip_comments(statement))
        explain = "\n".join(row[0] for row in self.rows(explain_statement(statement, kind)))
        sources: dict[str, dict[str, str]] = {}
        for table in scanned_tables(physical_plan(explain)):
            try:
                sources[table] = with_options("\n".join(row[0] for row in self.rows(f"SHOW CREATE TABLE {table}")))
            except GatewayError:
                sources[table] = {}  # not a catalog table: its connector stays unknown
        batch = self.conf.get(RUNTIME_MODE, "streaming").strip().lower() == "batch"
        return verdict(explain, sources, batch=batch)

    def _close_operation(self, operation: str) -> None:
        try:
            self.api.close_operation(self.handle, operation)
        except (GatewayError, FlinklabError):
            pass  # clean-up: the gateway may be gone, which the caller reports

    def _int(self, key: str, default: int) -> int:
        try:
            return int(self.conf.get(key, default))
        except ValueError:
            return default
