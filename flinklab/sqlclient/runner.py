"""A sql-client-compatible runner: SQL scripts on PyFlink's TableEnvironment, pointed at the running cluster.

The PyPI Flink has no SQL gateway jar, so its own `sql-client.sh` cannot start. This runner does what the real
client's embedded gateway does, through one PyFlink gateway JVM per process (:class:`SqlClient`) and one
:class:`SqlSession` per invocation: parse each statement with Flink's own parser, execute it with
`execution.target: remote` (jobs show up in the cluster's Web UI), and print what `sql-client.sh -f` prints
(`[INFO]`/`[ERROR]` lines, the tableau with Flink's cell texts, footers with time costs).

Departures from the real client, all on purpose: each statement is echoed after its `Flink SQL> ` prompt (the
real client's dumb terminal glues echoes unpredictably); an INSERT's job is waited for before the next statement
and a failed job is reported as an `[ERROR]`; a query that the real client would reject in `-f` mode for its
result mode is rejected before a job is submitted; a failing `-i` statement prints the `[ERROR]` block.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import threading
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO
from urllib.parse import urlparse

from flinklab.cluster.base import resolve_rest_url
from flinklab.cluster.rest import FlinkRest
from flinklab.errors import FlinklabError, NoClusterError
from flinklab.settings import Settings
from flinklab.sqlclient import tableau
from flinklab.sqlclient.errors import error_reason
from flinklab.sqlclient.java_shim import gateway_java_home
from flinklab.sqlclient.splitter import split_statements, strip_comments
from flinklab.sqlclient.sqlfiles import read_sql
from flinklab.text import first_line

if TYPE_CHECKING:
    from py4j.java_gateway import JavaGateway

PROMPT = "Flink SQL> "
CONTINUATION_PROMPT = "> "
RUNTIME_MODE = "execution.runtime-mode"
RESULT_MODE = "sql-client.execution.result-mode"
PRINT_TIME_COST = "sql-client.display.print-time-cost"
VERBOSE = "sql-client.verbose"
MAX_COLUMN_WIDTH = "table.display.max-column-width"
DML_SYNC = "table.dml-sync"

MSG_EXECUTE_FILE = "[INFO] Executing SQL from file."
MSG_STATEMENT_OK = "[INFO] Execute statement succeeded."
MSG_SUBMITTING = "[INFO] Submitting SQL update statement to the cluster..."
MSG_SUBMITTED = "[INFO] SQL update statement has been successfully submitted to the cluster:"
MSG_COMPLETE = "[INFO] Complete execution of the SQL update statement."
MSG_ERROR = "[ERROR] Could not execute SQL statement. Reason:"
MSG_SHUTDOWN = "Shutting down the session...\ndone."

#: How long the result printer waits for the JVM's next output before it looks again, and at most for the JVM
#: to stop printing after Ctrl-C.
_POLL_SECONDS = 0.05
_STOP_SECONDS = 5.0

_SQL_EXECUTION_EXCEPTION = "org.apache.flink.table.client.gateway.SqlExecutionException"
_OPS = "org.apache.flink.table.operations."

# Flink's two SET syntaxes: the SQL parser's `SET 'k' = 'v'` and the legacy `SET k = v` / `SET k = 'v'`
# (SetOperationParseStrategy). Anything else that starts with SET/RESET goes to Flink's parser for its error.
_SET_QUOTED = re.compile(r"SET\s+'((?:[^']|'')*)'\s*=\s*'((?:[^']|'')*)'", re.IGNORECASE | re.DOTALL)
_SET_LEGACY = re.compile(r"SET\s+([^'\s=]+)\s*=\s*(?:'((?:[^']|'')*)'|([^;\s]+))", re.IGNORECASE | re.DOTALL)
_SET_LIST = re.compile(r"SET", re.IGNORECASE)
_RESET_KEY = re.compile(r"RESET\s+(?:'((?:[^']|'')*)'|([^'\s;]+))", re.IGNORECASE | re.DOTALL)
_RESET_ALL = re.compile(r"RESET", re.IGNORECASE)


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


@dataclass
class QueryRows:
    """A query's result as data: column types, and per row its kind (+I/-U/+U/-D) and Flink's cell texts."""

    columns: list[tableau.ColumnType]
    job_id: str | None = None
    kinds: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)


class RunListener(Protocol):
    def statement_started(self, index: int, statement: str) -> None: ...

    def statement_finished(self, outcome: StatementOutcome) -> None: ...


class ClientSideError(Exception):
    """A rejection the real client raises itself (not the planner), printed as `<java class>: <message>`."""

    def __init__(self, message: str, java_class: str = _SQL_EXECUTION_EXCEPTION):
        super().__init__(message)
        self.reason = f"{java_class}: {message}"


def _launch_gateway(settings: Settings) -> JavaGateway:
    """PyFlink's gateway JVM (one per process); its log goes to the state dir, not into site-packages.

    Without Java on the host, the JVM runs in a container of the Flink image (java_shim): a machine with only
    Docker can do the labs. A JVM that cannot start is one FlinklabError line, not PyFlink's RuntimeError.
    """
    if "FLINK_LOG_DIR" not in os.environ:
        log_dir = settings.state_dir / "client-logs"
        try:
            log_dir.mkdir(parents=True, exist_ok=True)
            os.environ["FLINK_LOG_DIR"] = str(log_dir)
        except OSError:
            pass  # PyFlink then logs into its own dir
    from pyflink import java_gateway

    if java_gateway._gateway is not None or "PYFLINK_GATEWAY_PORT" in os.environ:
        return java_gateway.get_gateway()  # a JVM is already there: nothing to find or write
    java_home = gateway_java_home(settings)
    saved = os.environ.get("JAVA_HOME")
    if java_home is not None:
        os.environ["JAVA_HOME"] = str(java_home)  # PyFlink copies os.environ for the JVM when it launches
    try:
        return java_gateway.get_gateway()
    except RuntimeError as exc:  # "Java gateway process exited before sending its port number.\nStderr:..."
        where = "in its container" if java_home is not None else "on this host"
        why = first_line("\n".join(str(exc).splitlines()[2:])) or "no reason printed"
        raise FlinklabError(f"The SQL runner's JVM did not start {where}: {why}",
                            f"Client logs: {os.environ.get('FLINK_LOG_DIR', settings.state_dir)}") from None
    finally:
        if java_home is not None:
            if saved is None:
                os.environ.pop("JAVA_HOME", None)
            else:
                os.environ["JAVA_HOME"] = saved


#: Open SqlClients in this process. PyFlink has ONE gateway JVM per process, so only the last close stops it
#: (otherwise closing a second client would kill the JVM under the first one).
_open_clients = 0


class SqlClient:
    """One PyFlink gateway JVM for many sessions (a session per `sql-client.sh` invocation)."""

    def __init__(self, settings: Settings, rest_url: str | None = None):
        self.settings = settings
        self.rest_url = (rest_url or resolve_rest_url(settings)).rstrip("/")
        self.rest = FlinkRest(self.rest_url)
        self.check_cluster()  # before the JVM starts: no cluster is one line, not seconds of launching first
        self._startup_check_unused = True  # the first invocation relies on this check instead of repeating it
        parsed = urlparse(self.rest_url)
        self.rest_host = parsed.hostname or "127.0.0.1"
        self.rest_port = parsed.port or 8081
        self.gateway = _launch_gateway(settings)
        self._classes: dict[str, Any] = {}
        self._closed = False
        global _open_clients
        _open_clients += 1

    def __enter__(self) -> SqlClient:  # noqa: PYI034
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def java_class(self, name: str) -> Any:
        """A Java Class object, looked up once."""
        if name not in self._classes:
            self._classes[name] = self.gateway.jvm.java.lang.Class.forName(name)
        return self._classes[name]

    def check_cluster(self) -> None:
        """Raise NoClusterError (one line) unless the cluster's REST endpoint answers."""
        if not self.rest.is_up():
            raise NoClusterError(self.rest_url)

    def check_cluster_for_invocation(self) -> None:
        """:meth:`check_cluster` once per invocation: the first one uses the check made at start-up."""
        if self._startup_check_unused:
            self._startup_check_unused = False
            return
        self.check_cluster()

    def new_session(self, conf: Mapping[str, str] | None = None) -> SqlSession:
        """A fresh session: an empty in-memory catalog and `conf` (like `-D k=v`) as its defaults."""
        if self._closed:
            raise RuntimeError("SqlClient is closed")
        return SqlSession(self, conf)

    def close(self) -> None:
        """Release this client; the last one open stops the gateway JVM (a later SqlClient starts a new one)."""
        global _open_clients
        if self._closed:
            return
        self._closed = True
        _open_clients -= 1
        if _open_clients > 0:
            return
        from pyflink import java_gateway

        # the JVM may already be gone; then there is nothing left to stop
        with contextlib.suppress(Exception):
            self.gateway.shutdown()
        java_gateway._gateway = None


def _true(value: str | None, default: bool) -> bool:
    if value is None:
        return default
    return value.strip().lower() == "true"


class SqlSession:
    """One sql-client session: its configuration, its catalog, its TableEnvironment.

    A TableEnvironment's runtime mode is fixed when it is created, so a SET that changes
    `execution.runtime-mode` builds a new one and replays the session's catalog statements (CREATE/DROP/ALTER,
    USE, modules) on it: tables from `-i ddl.sql` stay visible in both modes.
    """

    def __init__(self, client: SqlClient, conf: Mapping[str, str] | None = None):
        self.client = client
        self._jvm = client.gateway.jvm
        self._defaults = {k: str(v) for k, v in (conf or {}).items()}
        self.conf: dict[str, str] = dict(self._defaults)
        self._catalog_log: list[str] = []  # statements to replay on a new TableEnvironment
        self._tenv: Any = None  # the Java TableEnvironment
        self._tenv_mode: str | None = None
        self._statement_set: list[Any] | None = None  # ModifyOperations between BEGIN STATEMENT SET and END
        self._mapper: Any = None

    # ---- configuration ----------------------------------------------------------------------------------

    @property
    def runtime_mode(self) -> str:
        return self.conf.get(RUNTIME_MODE, "streaming").strip().lower()

    @property
    def streaming(self) -> bool:
        return self.runtime_mode == "streaming"

    def _result_mode(self) -> str:
        raw = self.conf.get(RESULT_MODE, "TABLE").strip()
        if raw.upper() not in ("TABLE", "CHANGELOG", "TABLEAU"):
            raise ClientSideError(
                f"Could not parse value '{raw}' for key '{RESULT_MODE}'.",
                "java.lang.IllegalArgumentException",
            )
        return raw.upper()

    def _time_cost(self, started: float) -> float | None:
        return time.monotonic() - started if _true(self.conf.get(PRINT_TIME_COST), True) else None

    def _max_width(self) -> int:
        try:
            return int(self.conf.get(MAX_COLUMN_WIDTH, tableau.DEFAULT_MAX_COLUMN_WIDTH))
        except ValueError:
            return tableau.DEFAULT_MAX_COLUMN_WIDTH

    def _env_conf(self) -> dict[str, str]:
        conf = {
            "execution.target": "remote",
            "rest.address": self.client.rest_host,
            "rest.port": str(self.client.rest_port),
            RUNTIME_MODE: self.runtime_mode,
        }
        conf.update({k: v for k, v in self.conf.items() if k != RUNTIME_MODE})
        return conf

    # ---- the TableEnvironment ---------------------------------------------------------------------------

    def _env(self) -> Any:
        if self._tenv is None or self._tenv_mode != self.runtime_mode:
            self._tenv = self._build_env()
            self._tenv_mode = self.runtime_mode
        return self._tenv

    def _build_env(self) -> Any:
        from pyflink.common import Configuration
        from pyflink.table import EnvironmentSettings, TableEnvironment

        conf = Configuration()
        for key, value in self._env_conf().items():
            conf.set_string(key, value)
        settings = EnvironmentSettings.new_instance().with_configuration(conf).build()
        tenv = TableEnvironment.create(settings)._j_tenv
        for statement in self._catalog_log:
            tenv.executeInternal(self._parse_one(tenv, statement))
        return tenv

    @staticmethod
    def _parse_one(tenv: Any, statement: str) -> Any:
        operations = tenv.getParser().parse(statement)
        if operations.size() != 1:
            raise ClientSideError(
                "Unsupported SQL statement! Execute statement only accepts a single SQL statement or multiple "
                "'INSERT INTO' statements wrapped in a 'STATEMENT SET' block.",
                "java.lang.UnsupportedOperationException",
            )
        return operations.get(0)

    def _is(self, obj: Any, class_name: str) -> bool:
        """`obj instanceof org.apache.flink.table.operations.<class_name>` (PyFlink's py4j is shaded, so
        py4j's own is_instance_of cannot find its helper class)."""
        cls = self.client.java_class(_OPS + class_name)
        return bool(cls.isInstance(obj))

    # ---- running scripts --------------------------------------------------------------------------------

    def run_script(
        self,
        sql: str,
        out: TextIO,
        *,
        listener: RunListener | None = None,
        interactive: bool = False,
    ) -> ScriptResult:
        """Run `sql` statement by statement as `sql-client.sh -f` does, stopping at the first failure.

        Prints each statement's section (`\\nFlink SQL> <statement>;` and its output), not the file header or
        the shutdown lines (see :func:`run_invocation`). With `interactive` a query is printed as a tableau
        whatever `sql-client.execution.result-mode` says.
        """
        return self._run_statements(sql, out, listener, echo=True, interactive=interactive)

    def run_init(self, sql: str, out: TextIO, *, listener: RunListener | None = None) -> ScriptResult:
        """Run an `-i` file: silently, and only statements that configure the session (as the real client)."""
        return self._run_statements(sql, out, listener, echo=False, init=True)

    def _run_statements(
        self, sql: str, out: TextIO, listener: RunListener | None, *, echo: bool, **execute_options: bool
    ) -> ScriptResult:
        """Execute `sql` statement by statement, telling `listener`, stopping at the first failure."""
        result = ScriptResult(ok=True)
        for index, statement in enumerate(split_statements(sql)):
            if echo:
                out.write("\n" + _echo(statement) + "\n")
                out.flush()
            if listener is not None:
                listener.statement_started(index, statement)
            outcome = self.execute(statement, out, **execute_options)
            result.statements.append(outcome)
            if listener is not None:
                listener.statement_finished(outcome)
            if not outcome.ok:
                result.ok = False
                break
        return result

    def execute(
        self, statement: str, out: TextIO, *, interactive: bool = False, init: bool = False
    ) -> StatementOutcome:
        """Execute one statement and print its result (or the `[ERROR]` block) to `out`."""
        started = time.monotonic()
        bare = strip_comments(statement)
        outcome = StatementOutcome(statement=statement, kind=_guess_kind(bare), ok=True, job_id=None, seconds=0.0)
        sink = io.StringIO() if init else out
        try:
            self._execute(statement, bare, sink, outcome, started, interactive=interactive, init=init)
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # noqa: BLE001 - every failure becomes the client's [ERROR] block
            outcome.ok = False
            outcome.error = self._reason(exc)
            out.write(f"{MSG_ERROR}\n{outcome.error}\n")
        outcome.seconds = time.monotonic() - started
        out.flush()
        return outcome

    def _reason(self, exc: BaseException) -> str:
        if isinstance(exc, ClientSideError):
            return exc.reason
        return error_reason(exc, self.client.gateway, verbose=_true(self.conf.get(VERBOSE), False))

    # ---- one statement ----------------------------------------------------------------------------------

    def _execute(
        self,
        statement: str,
        bare: str,
        out: TextIO,
        outcome: StatementOutcome,
        started: float,
        *,
        interactive: bool,
        init: bool,
    ) -> None:
        if self._try_set_or_reset(bare, out, outcome):  # `bare`: the statement without its comments
            return
        tenv = self._env()
        operation = self._parse_one(tenv, statement)
        outcome.kind = self._kind(operation)
        if init and outcome.kind not in ("ddl", "set", "reset"):
            raise ClientSideError(
                f"Unsupported statement for configuring session:{statement};\n"
                "The configureSession API only supports to execute statement of type CREATE TABLE, DROP TABLE, "
                "ALTER TABLE, CREATE DATABASE, DROP DATABASE, ALTER DATABASE, CREATE FUNCTION, DROP FUNCTION, "
                "ALTER FUNCTION, CREATE CATALOG, DROP CATALOG, USE CATALOG, USE [CATALOG.]DATABASE, CREATE VIEW, "
                "DROP VIEW, LOAD MODULE, UNLOAD MODULE, USE MODULE, ADD JAR.",
                "java.lang.UnsupportedOperationException",
            )
        if self._statement_set is not None:
            self._in_statement_set(tenv, operation, outcome, out, started)
            return
        if outcome.kind == "begin_statement_set":
            self._statement_set = []
            out.write(MSG_STATEMENT_OK + "\n")
            return
        if outcome.kind == "end_statement_set":
            raise ClientSideError(
                "No Statement Set to submit. 'END' statement should be used after 'BEGIN STATEMENT SET'."
            )
        if outcome.kind == "query":
            if not interactive and self._result_mode() != "TABLEAU":
                raise ClientSideError(
                    f"In non-interactive mode, it only supports to use TABLEAU as value of {RESULT_MODE} when "
                    f"execute query. Please add 'SET {RESULT_MODE}=TABLEAU;' in the sql file."
                )
            self._run_query(tenv.executeInternal(operation), out, outcome, started)
            return
        result = tenv.executeInternal(operation)
        job = result.getJobClient()
        if job.isPresent():
            self._run_job(result, job.get(), out, outcome)
        elif str(result.getResultKind().name()) == "SUCCESS":
            out.write(MSG_STATEMENT_OK + "\n")
        else:
            self._print_content(result, out, outcome)
        if outcome.kind == "ddl":
            self._catalog_log.append(statement)

    def _kind(self, op: Any) -> str:
        name = str(op.getClass().getSimpleName())
        if self._is(op, "QueryOperation"):
            return "query"
        if self._is(op, "StatementSetOperation"):
            return "statement_set"
        if self._is(op, "ModifyOperation"):
            return "insert"  # INSERT, CREATE TABLE AS, REPLACE TABLE AS: they all run a job
        simple = {
            "CompilePlanOperation": "compile_plan",
            "CompileAndExecutePlanOperation": "execute_plan",
            "ExecutePlanOperation": "execute_plan",
            "ExplainOperation": "explain",
            "BeginStatementSetOperation": "begin_statement_set",
            "EndStatementSetOperation": "end_statement_set",
        }
        if name in simple:
            return simple[name]
        if name.startswith("Show"):
            return "show"
        if name.startswith("Describe"):
            return "describe"
        for base in (
            "ddl.CreateOperation",
            "ddl.DropOperation",
            "ddl.AlterOperation",
            "UseOperation",
            "LoadModuleOperation",
            "UnloadModuleOperation",
        ):
            if self._is(op, base):
                return "ddl"
        if name == "AddJarOperation":
            return "ddl"
        return "other"

    def _in_statement_set(
        self, tenv: Any, op: Any, outcome: StatementOutcome, out: TextIO, started: float
    ) -> None:
        assert self._statement_set is not None
        if outcome.kind == "end_statement_set":
            operations = self._statement_set
            self._statement_set = None
            outcome.kind = "statement_set"
            if not operations:
                out.write(MSG_STATEMENT_OK + "\n")
                return
            java_list = self._jvm.java.util.ArrayList()
            for operation in operations:
                java_list.add(operation)
            result = tenv.executeInternal(java_list)
            self._run_job(result, result.getJobClient().get(), out, outcome)
        elif outcome.kind == "insert":
            self._statement_set.append(op)
            out.write(MSG_STATEMENT_OK + "\n")
        else:
            raise ClientSideError(
                "Only 'INSERT/CREATE TABLE AS' statement is allowed in Statement Set or use 'END' statement to "
                "submit Statement Set."
            )

    def _try_set_or_reset(self, bare: str, out: TextIO, outcome: StatementOutcome) -> bool:
        """Handle SET/RESET here: the session owns its configuration (and the runtime mode)."""
        match = _SET_QUOTED.fullmatch(bare) or _SET_LEGACY.fullmatch(bare)
        if match:
            outcome.kind = "set"
            key = match.group(1).replace("''", "'").strip()
            if match.re is _SET_QUOTED:
                value = match.group(2).replace("''", "'")
            else:
                value = match.group(2).replace("''", "'") if match.group(2) is not None else match.group(3)
            self._set(key, value.strip())
            out.write(MSG_STATEMENT_OK + "\n")
            return True
        if _SET_LIST.fullmatch(bare):
            outcome.kind = "set"
            rows = sorted(self._env_conf().items())
            outcome.rows = len(rows)
            _write_lines(out, tableau.render_content(["key", "value"], [list(r) for r in rows]))
            return True
        match = _RESET_KEY.fullmatch(bare)
        if match or _RESET_ALL.fullmatch(bare):
            outcome.kind = "reset"
            if match:
                key = (match.group(1) or "").replace("''", "'").strip() or match.group(2)
                self._reset(key)
            else:
                self._reset(None)
            out.write(MSG_STATEMENT_OK + "\n")
            return True
        return False

    def _set(self, key: str, value: str) -> None:
        previous = dict(self.conf)
        self.conf[key] = value
        if key == RUNTIME_MODE:
            if self._tenv is not None and self._tenv_mode == self.runtime_mode:
                return
            try:  # build now, so a bad mode fails this SET (and a good one is ready for the next statement)
                self._env()
            except Exception:
                self.conf = previous
                raise
        elif self._tenv is not None:
            self._tenv.getConfig().set(key, value)

    def _reset(self, key: str | None) -> None:
        if key is None:
            self.conf = dict(self._defaults)
        elif key in self._defaults:
            self.conf[key] = self._defaults[key]
        else:
            self.conf.pop(key, None)
        self._tenv = None  # a TableConfig cannot forget a key; the next statement builds a fresh environment

    # ---- printing results -------------------------------------------------------------------------------

    def _columns(self, result: Any) -> list[tableau.ColumnType]:
        checks = self._jvm.org.apache.flink.table.types.logical.utils.LogicalTypeChecks
        columns = []
        for column in result.getResolvedSchema().getColumns():
            logical = column.getDataType().getLogicalType()
            root = str(logical.getTypeRoot().name())
            precision = None
            if root in (
                "DECIMAL",
                "TIME_WITHOUT_TIME_ZONE",
                "TIMESTAMP_WITHOUT_TIME_ZONE",
                "TIMESTAMP_WITH_LOCAL_TIME_ZONE",
            ):
                precision = int(checks.getPrecision(logical))
            columns.append(tableau.ColumnType(str(column.getName()), root, precision))
        return columns

    def _cells(self, converter: Any, row: Any) -> list[str]:
        """Flink's own text for each field (one JVM round trip for the whole row)."""
        if self._mapper is None:
            self._mapper = (
                self._jvm.org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper()
            )
        return json.loads(self._mapper.writeValueAsString(converter.convert(row)))

    def _run_query(self, result: Any, out: TextIO, outcome: StatementOutcome, started: float) -> None:
        outcome.job_id = _job_id(result)
        columns = self._columns(result)
        styles = self._jvm.org.apache.flink.table.utils.print.PrintStyle
        schema, converter, width = result.getResolvedSchema(), result.getRowDataToStringConverter(), self._max_width()
        rows_iter = result.collectInternal()
        try:
            if self.streaming:
                table = tableau.StreamingTableau(columns, width)
                style = styles.tableauWithTypeInferredColumnWidths(schema, converter, width, False, True)
                lines = 0

                def emit(text: str) -> None:
                    nonlocal lines
                    out.write(text)
                    out.flush()
                    lines += text.count("\n")

                try:
                    table.count, _ = self._print_in_jvm(style, rows_iter, emit)
                except KeyboardInterrupt:
                    count = max(lines - 3, 0)  # every line after the 3 header lines is a row
                    out.write(f"Query terminated, received a total of {count} {'rows' if count > 1 else 'row'}\n")
                    raise
                # printTable's closing border is dropped: the footer puts it back only after a row, as the client
                _write_lines(out, table.footer(self._time_cost(started)))
                outcome.rows = table.count
            else:
                style = styles.tableauWithDataInferredColumnWidths(schema, converter, width, False, False)
                chunks: list[str] = []
                count, border = self._print_in_jvm(style, rows_iter, chunks.append)
                seconds = self._time_cost(started)
                if count:  # an empty batch result is only its footer (no header)
                    out.write("".join(chunks) + border)
                _write_lines(out, [tableau.batch_footer(count, seconds)])
                outcome.rows = count
        finally:
            # closing cancels an unfinished job; after a failure it may fail again, and the first error counts
            with contextlib.suppress(Exception):
                rows_iter.close()

    def _print_in_jvm(self, style: Any, rows_iter: Any, emit: Callable[[str], None]) -> tuple[int, str]:
        """Flink's `TableauStyle.printTable` over `rows_iter`, run in the JVM: (rows, its closing border line).

        A py4j round trip per row (hasNext, next, row kind, convert) caps a result at ~1k rows/s, so the JVM
        prints the tableau itself into a StringBuffer, from a helper thread's own py4j connection, while this
        thread hands the buffer's complete lines to `emit` as they come: all but the last one (the closing
        border), which is returned. Raises what the JVM raised, after emitting the rows printed before.
        """
        jvm = self._jvm
        writer = jvm.java.io.StringWriter()
        buffer = writer.getBuffer()  # a StringBuffer: synchronized calls, safe to read while the JVM appends
        done: dict[str, Any] = {}

        def print_table() -> None:
            try:
                done["count"] = int(style.printTable(rows_iter, jvm.java.io.PrintWriter(writer)))
            except BaseException as exc:  # noqa: BLE001 - handed over to the caller's thread
                done["error"] = exc

        def drain() -> str:
            size = int(buffer.length())
            if size == 0:
                return ""
            text = str(buffer.substring(0, size))
            buffer.delete(0, size)  # the JVM only appends, so the first `size` chars are exactly what was read
            return text

        thread = threading.Thread(target=print_table, name="flinklab-tableau", daemon=True)
        thread.start()
        held = ""  # not emitted yet: the last complete line and an incomplete one after it
        try:
            while True:
                finished = not thread.is_alive()  # checked before draining: nothing arrives after that drain
                chunk = drain()
                if chunk:
                    held += chunk
                    end = held.rfind("\n")  # the end of the last complete line
                    start = held.rfind("\n", 0, end) if end > 0 else -1
                    if start >= 0:
                        emit(held[: start + 1])
                        held = held[start + 1 :]
                if finished:
                    break
                if not chunk:
                    thread.join(_POLL_SECONDS)
        except KeyboardInterrupt:
            with contextlib.suppress(Exception):
                rows_iter.close()  # cancels the job, so the JVM's printTable returns
            thread.join(_STOP_SECONDS)
            raise
        if "error" in done:
            if held:
                emit(held if held.endswith("\n") else held + "\n")
            raise done["error"]
        return int(done["count"]), held

    def _changes(self, result: Any) -> Generator[tuple[str, list[str]], None, None]:
        """(row kind, Flink's cell texts) per result row, as they arrive; closing it cancels an unfinished job."""
        converter = result.getRowDataToStringConverter()
        rows_iter = result.collectInternal()
        try:
            while rows_iter.hasNext():
                row = rows_iter.next()
                yield str(row.getRowKind().shortString()), self._cells(converter, row)
        finally:
            # after a failure closing may fail again, and the first error is the one to report
            with contextlib.suppress(Exception):
                rows_iter.close()

    def fetch(self, query: str) -> QueryRows:
        """Run one query in this session and return its rows as Flink renders them, without printing.

        Raises what PyFlink raises when the query fails (see :func:`flinklab.sqlclient.errors.error_reason`).
        """
        tenv = self._env()
        result = tenv.executeInternal(self._parse_one(tenv, query))
        fetched = QueryRows(columns=self._columns(result), job_id=_job_id(result))
        for kind, cells in self._changes(result):
            fetched.kinds.append(kind)
            fetched.rows.append(cells)
        return fetched

    def _run_job(self, result: Any, job: Any, out: TextIO, outcome: StatementOutcome) -> None:
        """INSERT / statement set / EXECUTE PLAN: print the submission, then wait for the job to end."""
        outcome.job_id = str(job.getJobID().toString())
        if _true(self.conf.get(DML_SYNC), False):
            getattr(result, "await")()
            out.write(MSG_COMPLETE + "\n")
            return
        out.write(f"{MSG_SUBMITTING}\n{MSG_SUBMITTED}\nJob ID: {outcome.job_id}\n\n")
        out.flush()
        getattr(result, "await")()  # a failed job raises here and becomes the [ERROR] block

    def _print_content(self, result: Any, out: TextIO, outcome: StatementOutcome) -> None:
        names = [str(n) for n in result.getResolvedSchema().getColumnNames()]
        converter = result.getRowDataToStringConverter()
        rows_iter = result.collectInternal()
        rows: list[list[str | None]] = []
        try:
            while rows_iter.hasNext():
                row = rows_iter.next()
                cells = self._cells(converter, row)
                rows.append([None if row.isNullAt(i) else cell for i, cell in enumerate(cells)])
        finally:
            rows_iter.close()
        outcome.rows = len(rows)
        _write_lines(out, tableau.render_content(names, rows))


def _job_id(result: Any) -> str | None:
    job = result.getJobClient()
    return str(job.get().getJobID().toString()) if job.isPresent() else None


def _write_lines(out: TextIO, lines: Sequence[str]) -> None:
    out.write("".join(line + "\n" for line in lines))


def _echo(statement: str) -> str:
    """The statement as typed at the prompt: `Flink SQL> ` first, `> ` before each further line."""
    lines = statement.split("\n")
    echoed = [PROMPT + lines[0]] + [CONTINUATION_PROMPT + line for line in lines[1:]]
    echoed[-1] += ";"
    return "\n".join(echoed)


_KIND_WORDS = [
    ("SET", "set"),
    ("RESET", "reset"),
    ("SELECT", "query"),
    ("WITH", "query"),
    ("VALUES", "query"),
    ("INSERT", "insert"),
    ("EXECUTE STATEMENT SET", "statement_set"),
    ("EXECUTE PLAN", "execute_plan"),
    ("COMPILE AND EXECUTE", "execute_plan"),
    ("COMPILE PLAN", "compile_plan"),
    ("EXPLAIN", "explain"),
    ("SHOW", "show"),
    ("DESCRIBE", "describe"),
    ("DESC", "describe"),
    ("CREATE", "ddl"),
    ("DROP", "ddl"),
    ("ALTER", "ddl"),
    ("USE", "ddl"),
]


def _guess_kind(bare: str) -> str:
    """The kind from the leading keywords of a statement without comments, for statements Flink could not parse
    (a SET or RESET that is not one of the forms handled here reaches Flink's parser and may keep this kind)."""
    words = " ".join(bare.upper().split())
    for prefix, kind in _KIND_WORDS:
        if words == prefix or words.startswith((prefix + " ", prefix + "(")):
            return kind
    return "other"


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
    NoClusterError when no cluster answers (before starting, or after a statement failed because it went away).
    """
    init_sql = [(Path(p), read_sql(Path(p))) for p in init_files]
    script = read_sql(Path(script_file)) if script_file is not None else (script_text or "")
    client.check_cluster_for_invocation()
    session = client.new_session(defines)
    total = ScriptResult(ok=True)

    for path, sql in init_sql:
        result = session.run_init(sql, out, listener=listener)
        total.statements += result.statements
        if not result.ok:
            total.ok = False
            out.write(
                f"Failed to initialize from sql script: {path.resolve().as_uri()}. See the [ERROR] above.\n"
            )
            break

    if total.ok:
        if script_file is not None:
            out.write(MSG_EXECUTE_FILE + "\n")
        result = session.run_script(script, out, listener=listener, interactive=script_file is None)
        total.statements += result.statements
        total.ok = result.ok
        if result.ok:
            out.write("\n" + PROMPT)  # the prompt that met the end of the file

    out.write("\n" + MSG_SHUTDOWN + "\n")
    out.flush()
    if not total.ok:
        client.check_cluster()  # a statement that failed because the cluster went away is not the SQL's fault
    return total
