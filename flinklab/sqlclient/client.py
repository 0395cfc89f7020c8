"""The SQL client: scripts run statement by statement on a SQL gateway, printed as Flink's `sql-client.sh -f`.

A thin front end, as Flink's own client is: it splits the script, echoes each statement, sends it to the gateway
(Flink's REST protocol, protocol.py) and prints the result through printer.py. No JVM runs in this process,
except with `embedded`, where flinklab.environment starts a gateway in-process for this one invocation (the slow,
old way) and hands this client its URL.

Departures from the real client, all on purpose: each statement is echoed after its `Flink SQL> ` prompt (the
real client's dumb terminal glues echoes unpredictably); an INSERT's job is waited for before the next statement
and a failed job is reported as an `[ERROR]`; a failing `-i` statement prints the `[ERROR]` block. As in the
real client, a query in `-f` mode without the TABLEAU result mode is rejected after the gateway accepted it (its
job is cancelled when the operation is closed), so the planner's own errors come first.

Why one module of ~420 lines: it is Flink's `CliClient` statement loop (split, echo, submit, print, the exit
status) and the one session object it drives; the printing itself is printer.py, the wire protocol.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TextIO

from flinklab.access import read_token
from flinklab.errors import FlinklabError, NoClusterError
from flinklab.flink.rest import FlinkRest
from flinklab.flink.sql_split import split_statements, strip_comments
from flinklab.flink.tls import cluster_rest
from flinklab.settings import Settings
from flinklab.sqlclient import tableau
from flinklab.sqlclient.kinds import guess_kind
from flinklab.sqlclient.printer import Printer, StreamingPrinter, reason_from_server
from flinklab.sqlclient.protocol import GatewayClient, GatewayError, Page
from flinklab.sqlclient.sqlfiles import read_sql
from flinklab.sqlclient.watch import ClusterWatch

RUNTIME_MODE = "execution.runtime-mode"
RESULT_MODE = "sql-client.execution.result-mode"
PRINT_TIME_COST = "sql-client.display.print-time-cost"
VERBOSE = "sql-client.verbose"
MAX_COLUMN_WIDTH = "table.display.max-column-width"
DML_SYNC = "table.dml-sync"

_CLIENT_EXCEPTION = "org.apache.flink.table.client.gateway.SqlExecutionException"
#: How long one status call may wait on the gateway for a submitted job to end (it answers at the end); short, so
#: that a client aborted while it waits (a dead cluster) stops within about this long.
_JOB_WAIT_SECONDS = 1.0
#: The shortest interval between status calls, for a gateway that answers at once.
_JOB_POLL_SECONDS = 0.05


@dataclass
class StatementOutcome:
    statement: str
    kind: str  # set, reset, ddl, query, insert, statement_set, compile_plan, execute_plan, explain, show, ...
    ok: bool
    job_id: str | None
    seconds: float
    error: str | None = None  # the reason printed after `[ERROR] ... Reason:`
    rows: int | None = None  # rows printed by a query (or a SHOW/DESCRIBE/EXPLAIN result)


@dataclass
class ScriptResult:
    ok: bool
    statements: list[StatementOutcome] = field(default_factory=list)

    @property
    def job_ids(self) -> list[str]:
        return [s.job_id for s in self.statements if s.job_id]


class RunListener(Protocol):
    def statement_started(self, index: int, statement: str) -> None: ...

    def job_submitted(self, job_id: str) -> None:
        """The running statement's Flink job was submitted (it may run for long: a streaming query, an INSERT)."""

    def statement_finished(self, outcome: StatementOutcome) -> None: ...


class StatementFailed(Exception):
    """A statement failed: `reason` is what the client prints after `Reason:`."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


_SHORT_KINDS = {"INSERT": "+I", "UPDATE_BEFORE": "-U", "UPDATE_AFTER": "+U", "DELETE": "-D"}

def _true(value: str | None, default: bool) -> bool:
    if value is None:
        return default
    return value.strip().lower() == "true"


def gateway_url(settings: Settings) -> str:
    """Where the gateway of the running cluster answers (`flink-up` starts it on the gateway port)."""
    return settings.gateway_url


class SqlClient:
    """A connection to a SQL gateway at `url` (default: flinklab's own, the settings' gateway URL).

    With `cluster_url`, that cluster is checked first (no cluster is the likelier mistake, and its message says
    so); which cluster is the recorded one is flinklab.environment's business (its SqlClient passes it). A
    `on_close` callback runs after the connection closes (an embedded gateway stops there)."""

    def __init__(self, settings: Settings, url: str | None = None, *, cluster_url: str | None = None,
                 on_close: Callable[[], None] | None = None, token: str | None = None):
        self.settings = settings
        self._on_close = on_close
        self.cluster_url = cluster_url
        self.check_cluster()
        self.url = (url or gateway_url(settings)).rstrip("/")
        self.api = GatewayClient(self.url, token=self._token_source(token))
        try:
            self.check()
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> SqlClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _token_source(self, token: str | None) -> Callable[[], str | None] | None:
        """What the gateway client sends as its token: `token` when given (an embedded gateway's), the state dir's
        for flinklab's own gateway (read when first needed, and again after a 401), nothing for another gateway
        (flinklab's token is not sent to a gateway it does not belong to)."""
        if token is not None:
            return lambda: token
        if self.url == gateway_url(self.settings).rstrip("/"):
            state_dir = self.settings.state_dir
            return lambda: read_token(state_dir)
        return None

    def check_cluster(self) -> None:
        """Raise NoClusterError (one line) unless the cluster of flinklab's gateway answers."""
        if self.cluster_url is not None and not self.cluster_rest().is_up():
            raise NoClusterError(self.cluster_url)

    def cluster_rest(self, timeout: float = 5.0) -> FlinkRest:
        """A REST client of this client's cluster (with the state dir's client certificate when it is `--shared`)."""
        return cluster_rest(str(self.cluster_url), self.settings.state_dir, timeout)

    def check(self) -> None:
        """Raise NoGatewayError (one line) unless the gateway answers."""
        self.api.info()

    def abort(self, error: Callable[[], BaseException]) -> None:
        """Stop whatever runs through this client, on any thread, at its next gateway call (`error()` is raised
        there); clean-up calls still go out, each given up after 2 s."""
        self.api.shorten_timeout(2.0)
        self.api.abort(error)

    def watching(self) -> ClusterWatch:
        """A watch on this client's cluster for a `with` block: when the cluster stops answering, this client is
        aborted with NoClusterError (no watch for a gateway named by URL: its cluster is unknown)."""
        url = self.cluster_url
        return ClusterWatch(url, on_gone=lambda: self.abort(lambda: NoClusterError(str(url))),
                            rest=self.cluster_rest)

    def new_session(self, conf: Mapping[str, str] | None = None) -> ClientSession:
        """A fresh gateway session: an empty catalog and `conf` (like `-D k=v`) as its defaults."""
        return ClientSession(self.api, conf)

    def close(self) -> None:
        api = getattr(self, "api", None)  # None when the cluster check failed before it was made
        if api is not None:
            api.close()
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close()


class ClientSession:
    """One session on the gateway, run as `sql-client.sh` runs one: its statements in order, printed."""

    def __init__(self, api: GatewayClient, conf: Mapping[str, str] | None = None):
        self.api = api
        self.handle = api.open_session({k: str(v) for k, v in (conf or {}).items()})
        self.conf: dict[str, str] = {}
        self._refresh_conf()

    def close(self) -> None:
        try:
            self.api.close_session(self.handle)
        except (GatewayError, FlinklabError):
            pass  # the gateway forgets it after the idle timeout anyway

    def _refresh_conf(self) -> None:
        self.conf = self.api.session_config(self.handle)

    # ---- configuration, as the client reads it ---------------------------------------------------------

    @property
    def streaming(self) -> bool:
        return self.conf.get(RUNTIME_MODE, "streaming").strip().lower() == "streaming"

    def _result_mode(self) -> str:
        raw = self.conf.get(RESULT_MODE, "TABLE").strip()
        if raw.upper() not in ("TABLE", "CHANGELOG", "TABLEAU"):
            raise StatementFailed(f"java.lang.IllegalArgumentException: Could not parse value '{raw}' for key "
                                  f"'{RESULT_MODE}'.")
        return raw.upper()

    def _check_tableau(self) -> None:
        if self._result_mode() != "TABLEAU":
            raise StatementFailed(
                f"{_CLIENT_EXCEPTION}: In non-interactive mode, it only supports to use TABLEAU as value of "
                f"{RESULT_MODE} when execute query. Please add 'SET {RESULT_MODE}=TABLEAU;' in the sql file."
            )

    def _time_cost(self, started: float) -> float | None:
        return time.monotonic() - started if _true(self.conf.get(PRINT_TIME_COST), True) else None

    def _max_width(self) -> int:
        try:
            return int(self.conf.get(MAX_COLUMN_WIDTH, tableau.DEFAULT_MAX_COLUMN_WIDTH))
        except ValueError:
            return tableau.DEFAULT_MAX_COLUMN_WIDTH

    def _reason(self, exc: GatewayError) -> str:
        if _true(self.conf.get(VERBOSE), False):
            return exc.client_side
        return reason_from_server(exc.server_side)

    # ---- scripts -----------------------------------------------------------------------------------------

    def run_script(self, sql: str, out: TextIO, *, listener: RunListener | None = None,
                   interactive: bool = False) -> ScriptResult:
        """Run `sql` statement by statement as `sql-client.sh -f` does, stopping at the first failure.

        Prints each statement's section (`\\nFlink SQL> <statement>;` and its output), not the file header or
        the shutdown lines (see :func:`run_invocation`). With `interactive` a query is printed as a tableau
        whatever `sql-client.execution.result-mode` says.
        """
        return self._run_statements(sql, Printer(out), listener, echo=True, interactive=interactive)

    def run_init(self, sql: str, out: TextIO, *, listener: RunListener | None = None) -> ScriptResult:
        """Run an `-i` file: silently, through the gateway's configure-session (as the real client)."""
        return self._run_statements(sql, Printer(out), listener, echo=False, init=True)

    def _run_statements(self, sql: str, printer: Printer, listener: RunListener | None, *, echo: bool,
                        interactive: bool = False, init: bool = False) -> ScriptResult:
        result = ScriptResult(ok=True)
        for index, statement in enumerate(split_statements(sql)):
            if echo:
                printer.statement(statement)
            if listener is not None:
                listener.statement_started(index, statement)
            outcome = self.execute(statement, printer, interactive=interactive, init=init,
                                   on_job=listener.job_submitted if listener is not None else None)
            result.statements.append(outcome)
            if listener is not None:
                listener.statement_finished(outcome)
            if not outcome.ok:
                result.ok = False
                break
            if outcome.kind == "quit":  # QUIT/EXIT end the script; what follows is never run
                break
        return result

    def execute(self, statement: str, printer: Printer, *, interactive: bool = False, init: bool = False,
                on_job: Callable[[str], None] | None = None) -> StatementOutcome:
        """Execute one statement and print its result (or the `[ERROR]` block); `on_job` is told its Flink
        job's id as soon as the job is submitted."""
        started = time.monotonic()
        kind = guess_kind(strip_comments(statement))
        outcome = StatementOutcome(statement=statement, kind=kind, ok=True, job_id=None, seconds=0.0)
        try:
            if kind == "help":
                printer.help()
            elif kind in ("quit", "clear"):
                pass  # the shutdown lines follow QUIT/EXIT; CLEAR has no screen to clear in a file
            elif init:
                self.api.configure_session(self.handle, statement)
            else:
                self._execute(statement, printer, outcome, started, interactive, on_job)
            if kind in ("set", "reset"):
                self._refresh_conf()
        except StatementFailed as exc:
            outcome.ok, outcome.error = False, exc.reason
        except GatewayError as exc:
            outcome.ok, outcome.error = False, self._reason(exc)
        if not outcome.ok:
            printer.error(outcome.error or "")
        outcome.seconds = time.monotonic() - started
        printer.flush()
        return outcome

    def _execute(self, statement: str, printer: Printer, outcome: StatementOutcome, started: float,
                 interactive: bool, on_job: Callable[[str], None] | None = None) -> None:
        operation = self.api.execute(self.handle, statement)
        pages = self.api.pages(self.handle, operation)
        try:
            first = next(p for p in pages if p.result_type != "NOT_READY")
            if first.job_id is not None and on_job is not None:
                on_job(first.job_id)
            if first.is_query:
                outcome.kind = "query"
                outcome.job_id = first.job_id
                if not interactive:
                    self._check_tableau()
                self._print_query(first, pages, printer, outcome, started, operation)
            elif first.job_id is not None:
                outcome.job_id = first.job_id
                if outcome.kind not in ("insert", "statement_set", "execute_plan"):
                    outcome.kind = "insert"
                self._wait_for_job(first, printer, operation)
            elif first.result_kind == "SUCCESS":
                printer.ok()
            else:
                rows = [row["fields"] for page in [first, *pages] for row in page.rows]
                outcome.rows = len(rows)
                printer.content([c["name"] for c in first.columns], rows)
        finally:
            try:
                self.api.close_operation(self.handle, operation)
            except (GatewayError, FlinklabError):
                pass  # closing is clean-up: what went wrong (a dead cluster, Ctrl-C) is what propagates

    def _wait_for_job(self, first: Page, printer: Printer, operation: str) -> None:
        """INSERT / statement set / EXECUTE PLAN: print the submission, then wait for the job to end."""
        sync = _true(self.conf.get(DML_SYNC), False)
        if not sync:
            printer.submitted(first.job_id or "")
        while True:
            asked = time.monotonic()
            status = self.api.status(self.handle, operation, wait=_JOB_WAIT_SECONDS)
            if status == "ERROR" and first.next_uri:
                self.api.fetch(first.next_uri)  # the page after the job id raises the job's failure
            if status not in ("PENDING", "RUNNING", "INITIALIZED"):
                break
            # flinklab's gateway held the call until the job ended or the wait ran out; a gateway that answers at
            # once (one that ignores `wait`) is not asked more often than every _JOB_POLL_SECONDS
            time.sleep(max(0.0, _JOB_POLL_SECONDS - (time.monotonic() - asked)))
        if sync:
            printer.completed()

    def _print_query(self, first: Page, pages: Iterator[Page], printer: Printer, outcome: StatementOutcome,
                     started: float, operation: str) -> None:
        columns = [column_type(c) for c in first.columns]
        width = self._max_width()
        if self.streaming:
            table = StreamingPrinter(printer, columns, width)
            try:
                for page in _with_first(first, pages):
                    table.rows([(_SHORT_KINDS.get(r["kind"], "+I"), cells(r)) for r in page.rows])
            except KeyboardInterrupt:
                printer.terminated(table.count)
                raise
            table.footer(self._time_cost(started))
            outcome.rows = table.count
        else:
            rows = [cells(r) for page in _with_first(first, pages) for r in page.rows]
            printer.batch_result([c.name for c in columns], rows, width, self._time_cost(started))
            outcome.rows = len(rows)


def _with_first(first: Page, rest: Iterator[Page]) -> Iterator[Page]:
    yield first
    yield from rest


def cells(row: Mapping[str, object]) -> list[str]:
    """A PLAIN_TEXT row's cells as the tableau prints them (SQL NULL as `<NULL>`)."""
    return [tableau.NULL_VALUE if cell is None else str(cell) for cell in row["fields"]]  # type: ignore[union-attr]


def column_type(column: Mapping[str, object]) -> tableau.ColumnType:
    """What the tableau needs of a result column: its name, type root and precision."""
    logical = column.get("logicalType") or {}
    root = str(logical.get("type", "VARCHAR"))  # type: ignore[union-attr]
    precision = logical.get("precision")  # type: ignore[union-attr]
    return tableau.ColumnType(str(column["name"]), root, precision if isinstance(precision, int) else None)


def run_invocation(
    client: SqlClient,
    out: TextIO,
    *,
    init_files: Sequence[Path] = (),
    script_file: Path | None = None,
    defines: Mapping[str, str] = {},
    listener: RunListener | None = None,
    script_text: str | None = None,
) -> ScriptResult:
    """What `sql-client.sh -i a.sql -f b.sql -D k=v > b.out 2>&1` prints and does, on a fresh session.

    `script_text` stands for a script piped on stdin (no `-f`): no `[INFO] Executing SQL from file.` line, and
    queries print as tableaux whatever the result mode. Raises UsageError for an unreadable file and
    NoGatewayError when no gateway answers.
    """
    init_sql = [(Path(p), read_sql(Path(p))) for p in init_files]
    script = read_sql(Path(script_file)) if script_file is not None else (script_text or "")
    printer = Printer(out)
    session = client.new_session(defines)
    total = ScriptResult(ok=True)
    finished = False  # the script ran to its end or to a failing statement (not cut off by a lost gateway)
    try:
        for path, sql in init_sql:
            result = session.run_init(sql, out, listener=listener)
            total.statements += result.statements
            if not result.ok:
                total.ok = False
                printer.init_failed(str(path))
                break
            printer.initialized(str(path))

        if total.ok:
            if script_file is not None:
                printer.executing_file()
            result = session.run_script(script, out, listener=listener, interactive=script_file is None)
            total.statements += result.statements
            total.ok = result.ok
            if result.ok:
                printer.end_of_file()
        finished = True
    finally:
        if finished:  # output cut off by a lost gateway or Ctrl-C must not look complete
            printer.shutdown()
        session.close()
    if not total.ok:
        client.check_cluster()  # a statement that failed because the cluster went away is not the SQL's fault
    return total
