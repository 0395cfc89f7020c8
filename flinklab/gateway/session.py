"""A gateway session: its configuration, its catalog, its TableEnvironment, and statements run against them.

Flink's SQL Gateway keeps one TableEnvironment per session (SessionContext + OperationExecutor); this does the same
on PyFlink's JVM. A TableEnvironment's runtime mode is fixed when it is created, so a SET that changes
`execution.runtime-mode` builds a new one and replays the session's catalog statements (CREATE/DROP/ALTER, USE,
modules) on it: tables from `-i ddl.sql` stay visible in both modes. Every call that plans runs on the session's
own Java thread (FlinklabWorker), because the planner keeps per-thread state.
"""

from __future__ import annotations

import os
import re
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from flinklab.gateway.jobs import ClusterJobs, job_statement, run_job_statement
from flinklab.gateway.jvm import Jvm
from flinklab.gateway.results import ResultSource, StaticRows, string_column

RUNTIME_MODE = "execution.runtime-mode"

# Flink's two SET syntaxes: the SQL parser's `SET 'k' = 'v'` and the legacy `SET k = v` / `SET k = 'v'`
# (SetOperationParseStrategy). Anything else that starts with SET/RESET goes to Flink's parser for its error.
_SET_QUOTED = re.compile(r"SET\s+'((?:[^']|'')*)'\s*=\s*'((?:[^']|'')*)'", re.IGNORECASE | re.DOTALL)
_SET_LEGACY = re.compile(r"SET\s+([^'\s=]+)\s*=\s*(?:'((?:[^']|'')*)'|([^;\s]+))", re.IGNORECASE | re.DOTALL)
_SET_LIST = re.compile(r"SET", re.IGNORECASE)
_RESET_KEY = re.compile(r"RESET\s+(?:'((?:[^']|'')*)'|([^'\s;]+))", re.IGNORECASE | re.DOTALL)
_RESET_ALL = re.compile(r"RESET", re.IGNORECASE)

_CONFIGURE_KINDS = ("ddl", "set", "reset")


class StatementError(Exception):
    """A rejection the gateway raises itself (not the planner): `<java class>: <message>` like Flink's."""

    def __init__(self, message: str, java_class: str = "org.apache.flink.table.api.TableException"):
        super().__init__(message)
        self.java_class = java_class
        self.message = message

    def text(self) -> str:
        return f"{self.java_class}: {self.message}"


class SetRejected(Exception):
    """A SET whose value a TableEnvironment cannot be built with (Flink's SessionContext.set tries one): Flink's
    `Failed to set key K with value V.` over the Java exception `cause`."""

    def __init__(self, key: str, value: str, cause: BaseException):
        super().__init__(f"Failed to set key {key} with value {value}.")
        self.message = str(self)
        self.cause = cause


def _is_add_jar(statement: str, path: str) -> bool:
    words = " ".join(statement.upper().split())
    return words.startswith("ADD JAR") and path in statement


def _strip_sql_comments(statement: str) -> str:
    from flinklab.flink.sql_split import strip_comments

    return strip_comments(statement)


class Session:
    """One session of the gateway. Not thread-safe by itself: the gateway runs one statement at a time per
    session (a second statement waits for the first, as Flink's SessionContext serialises them)."""

    def __init__(self, jvm: Jvm, cluster_conf: Mapping[str, str], properties: Mapping[str, str] | None = None,
                 name: str | None = None, *, cluster_jobs: Callable[[], ClusterJobs] | None = None,
                 state_dir: Path | None = None):
        self.handle = str(uuid.uuid4())
        #: SHOW JOBS / DESCRIBE JOB / STOP JOB reach the cluster through this (None: the warm-up's dry sessions)
        self._cluster_jobs = cluster_jobs
        self._state_dir = state_dir
        self.name = name or self.handle
        self.jvm = jvm
        self._cluster_conf = dict(cluster_conf)  # execution.target, rest.address/port
        # what Flink's gateway lists for every session (its DefaultContext for a remote session cluster)
        self._base = {
            "execution.attached": "true",
            "execution.shutdown-on-attached-exit": "false",
            "execution.state-recovery.claim-mode": "NO_CLAIM",
            "execution.state-recovery.ignore-unclaimed-state": "false",
            "execution.target": self._cluster_conf.get("execution.target", "remote"),
            "jobmanager.rpc.address": self._cluster_conf.get("rest.address", "127.0.0.1"),
            "rest.port": self._cluster_conf.get("rest.port", "8081"),
        }
        # the properties it was opened with; RESET drops them as Flink's does (back to the gateway's defaults)
        self.conf: dict[str, str] = {k: str(v) for k, v in (properties or {}).items()}
        self._catalog_log: list[str] = []
        self._tenv: Any = None
        self._tenv_mode: str | None = None
        self._statement_set: list[Any] | None = None
        self._worker = jvm.worker(f"flinklab-session-{self.handle[:8]}")
        self.lock = threading.Lock()
        self.last_access = time.monotonic()
        self.closed = False

    # ---- configuration ----------------------------------------------------------------------------------

    @property
    def runtime_mode(self) -> str:
        return self.conf.get(RUNTIME_MODE, "streaming").strip().lower()

    def properties(self) -> dict[str, str]:
        """The session's configuration as `GET /sessions/:handle` and `SET;` report it."""
        return {**self._base, **self.conf}

    def touch(self) -> None:
        self.last_access = time.monotonic()

    # ---- the TableEnvironment ---------------------------------------------------------------------------

    def env(self) -> Any:
        if self._tenv is None or self._tenv_mode != self.runtime_mode:
            self._tenv = self._build_env()
            self._tenv_mode = self.runtime_mode
        return self._tenv

    def _build_env(self) -> Any:
        conf = self.jvm.jvm.org.apache.flink.configuration.Configuration()
        for key, value in {**self._cluster_conf, **self.properties(), RUNTIME_MODE: self.runtime_mode}.items():
            conf.setString(key, value)
        tenv = self._worker.createEnvironment(conf)
        for statement in self._catalog_log:
            self._worker.execute(tenv, self._parse_one(tenv, statement))
        return tenv

    def _parse_one(self, tenv: Any, statement: str) -> Any:
        operations = self._worker.parse(tenv, statement)
        if operations.size() != 1:
            raise StatementError(
                "Unsupported SQL statement! Execute statement only accepts a single SQL statement or multiple "
                "'INSERT INTO' statements wrapped in a 'STATEMENT SET' block.",
                "java.lang.UnsupportedOperationException",
            )
        return operations.get(0)

    # ---- statements -------------------------------------------------------------------------------------

    def execute(self, statement: str, *, configure_only: bool = False, operation_handle: str = "") -> ResultSource:
        """Run one statement; its result (rows now or later, job id) for the operation to serve
        (`operation_handle` names the operation in the messages that Flink's name it in)."""
        bare = _strip_sql_comments(statement)
        handled = self._set_or_reset(bare)
        if handled is not None:
            return handled
        tenv = self.env()
        operation = self._parse_one(tenv, statement)
        kind = self.kind(operation)
        if configure_only and kind not in _CONFIGURE_KINDS:
            raise StatementError(
                f"Unsupported statement for configuring session:{statement};\n"
                "The configureSession API only supports to execute statement of type CREATE TABLE, DROP TABLE, "
                "ALTER TABLE, CREATE DATABASE, DROP DATABASE, ALTER DATABASE, CREATE FUNCTION, DROP FUNCTION, "
                "ALTER FUNCTION, CREATE CATALOG, DROP CATALOG, USE CATALOG, USE [CATALOG.]DATABASE, CREATE VIEW, "
                "DROP VIEW, LOAD MODULE, UNLOAD MODULE, USE MODULE, ADD JAR.",
                "java.lang.UnsupportedOperationException",
            )
        if self._statement_set is not None:
            return self._in_statement_set(tenv, operation, kind)
        if kind == "begin_statement_set":
            self._statement_set = []
            return StaticRows.ok()
        if kind == "end_statement_set":
            raise StatementError(
                "No Statement Set to submit. 'END' statement should be used after 'BEGIN STATEMENT SET'.",
                "org.apache.flink.table.gateway.service.utils.SqlExecutionException",
            )
        if str(operation.getClass().getSimpleName()) == "RemoveJarOperation":
            return self._remove_jar(tenv, operation)
        job = job_statement(operation)
        if job is not None and self._cluster_jobs is not None:  # Flink's gateway runs these itself
            return run_job_statement(job, self._cluster_jobs(), self.properties(), operation_handle,
                                     self._state_dir)
        result = self._worker.execute(tenv, operation)
        if kind == "ddl":
            self._catalog_log.append(statement)
        elif kind == "insert":
            self._remember_created_table(tenv, operation)
        return ResultSource.from_table_result(self.jvm, result, is_query=kind == "query")

    def plan(self, statement: str) -> None:
        """Plan and execute one statement, its result left unread (the warm-up's dry runs: nothing to read)."""
        tenv = self.env()
        self._worker.execute(tenv, self._parse_one(tenv, statement))

    def lower_priority(self) -> bool:
        """Give this session's Java thread the lowest CPU priority (nice 19: it runs when nothing else wants the
        CPU), where the JVM shares this process's PID namespace (not a JVM in a container); True when done. Nice is
        per thread on Linux, and a session's thread plans only its own statements."""
        link = str(self._worker.nativeThread())  # "pid:[4026531836] 1234/task/5678"
        namespace, _, thread = link.partition(" ")
        tid = thread.rsplit("/", 1)[-1]
        try:
            if not tid.isdigit() or namespace != os.readlink("/proc/self/ns/pid"):
                return False
            os.setpriority(os.PRIO_PROCESS, int(tid), 19)
        except OSError:
            return False
        return True

    def _remember_created_table(self, tenv: Any, operation: Any) -> None:
        """A CREATE/REPLACE TABLE ... AS SELECT: log its table as `SHOW CREATE TABLE` prints it, so a rebuilt
        TableEnvironment (a new runtime mode) has the table without running the query again."""
        if str(operation.getClass().getSimpleName()) not in ("CreateTableASOperation", "ReplaceTableAsOperation"):
            return
        identifier = operation.getCreateTableOperation().getTableIdentifier().asSerializableString()
        shown = self._worker.execute(tenv, self._parse_one(tenv, f"SHOW CREATE TABLE {identifier}"))
        rows = shown.collectInternal()
        try:
            if rows.hasNext():
                self._catalog_log.append(str(rows.next().getString(0)))
        finally:
            rows.close()

    def _remove_jar(self, tenv: Any, operation: Any) -> ResultSource:
        """REMOVE JAR, which Flink's gateway does itself (TableEnvironment.executeSql has no such operation, and a
        class loader cannot forget a jar): the session's environment is built again without it."""
        path = str(operation.getPath())
        self._catalog_log = [s for s in self._catalog_log if not _is_add_jar(s, path)]
        self._tenv = None
        self.env()
        return StaticRows.ok()

    def kind(self, op: Any) -> str:
        """What the operation is: query, insert, statement_set, ddl, show, ... (Flink's operation classes)."""
        jvm = self.jvm
        name = str(op.getClass().getSimpleName())
        if jvm.is_operation(op, "QueryOperation"):
            return "query"
        if jvm.is_operation(op, "StatementSetOperation"):
            return "statement_set"
        if jvm.is_operation(op, "ModifyOperation"):
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
        for base in ("ddl.CreateOperation", "ddl.DropOperation", "ddl.AlterOperation", "UseOperation",
                     "LoadModuleOperation", "UnloadModuleOperation"):
            if jvm.is_operation(op, base):
                return "ddl"
        if name == "AddJarOperation":
            return "ddl"
        return "other"

    def _in_statement_set(self, tenv: Any, op: Any, kind: str) -> ResultSource:
        assert self._statement_set is not None
        if kind == "end_statement_set":
            operations = self._statement_set
            self._statement_set = None
            if not operations:
                return StaticRows.ok()
            java_list = self.jvm.jvm.java.util.ArrayList()
            for operation in operations:
                java_list.add(operation)
            result = self._worker.executeAll(tenv, java_list)
            return ResultSource.from_table_result(self.jvm, result, is_query=False)
        if kind == "insert":
            self._statement_set.append(op)
            return StaticRows.ok()
        raise StatementError(
            "Only 'INSERT/CREATE TABLE AS' statement is allowed in Statement Set or use 'END' statement to "
            "submit Statement Set.",
            "org.apache.flink.table.gateway.service.utils.SqlExecutionException",
        )

    def _set_or_reset(self, bare: str) -> ResultSource | None:
        """SET/RESET are the session's own: it owns its configuration (and the runtime mode)."""
        match = _SET_QUOTED.fullmatch(bare) or _SET_LEGACY.fullmatch(bare)
        if match:
            key = match.group(1).replace("''", "'").strip()
            if match.re is _SET_QUOTED:
                value = match.group(2).replace("''", "'")
            else:
                value = match.group(2).replace("''", "'") if match.group(2) is not None else match.group(3)
            self.set(key, value.strip())
            return StaticRows.ok()
        if _SET_LIST.fullmatch(bare):
            rows = sorted(self.properties().items())
            return StaticRows([string_column("key"), string_column("value")], [list(r) for r in rows])
        match = _RESET_KEY.fullmatch(bare)
        if match or _RESET_ALL.fullmatch(bare):
            if match:
                self.reset((match.group(1) or "").replace("''", "'").strip() or match.group(2))
            else:
                self.reset(None)
            return StaticRows.ok()
        return None

    def set(self, key: str, value: str) -> None:
        """SET `key` to `value`, as Flink's SessionContext.set: only if a TableEnvironment can be built with it
        (an unknown `table.sql-dialect`, an unparsable typed option: SetRejected, and the session is unchanged)."""
        if key != RUNTIME_MODE:  # a new runtime mode builds the session's environment below, which checks it
            self._check_settable(key, value)
        previous = dict(self.conf)
        self.conf[key] = value
        if key == RUNTIME_MODE:
            if self._tenv is not None and self._tenv_mode == self.runtime_mode:
                return
            try:  # build now, so a bad mode fails this SET (and a good one is ready for the next statement)
                self.env()
            except Exception as exc:
                self.conf = previous
                raise SetRejected(key, value, exc) from exc
        elif self._tenv is not None:
            self._tenv.getConfig().set(key, value)

    def _check_settable(self, key: str, value: str) -> None:
        conf = self.jvm.jvm.org.apache.flink.configuration.Configuration()
        for name, setting in {**self._cluster_conf, **self.properties(), RUNTIME_MODE: self.runtime_mode,
                              key: value}.items():
            conf.setString(name, setting)
        try:
            self._worker.createEnvironment(conf)  # as Flink: its planner reads table.sql-dialect as it is made
        except Exception as exc:
            raise SetRejected(key, value, exc) from exc

    def reset(self, key: str | None) -> None:
        """RESET one key, or all: back to the gateway's defaults, keeping the catalog (as Flink's gateway)."""
        removed = list(self.conf) if key is None else [key]
        mode = self.runtime_mode
        for name in removed:
            self.conf.pop(name, None)
        if self._tenv is None:
            return
        if self.runtime_mode != mode:
            self.env()  # a TableEnvironment's mode is fixed: build one and replay the catalog on it
            return
        table_conf = self._tenv.getConfig().getConfiguration()
        for name in removed:
            table_conf.removeKey(name)
            if name in self._base:
                table_conf.setString(name, self._base[name])

    def complete(self, statement: str, position: int) -> list[str]:
        """Flink's completion hints for `statement` at `position` (its SQL parser's)."""
        with self.lock:
            return [str(h) for h in self._worker.completeStatement(self.env(), statement, position)]

    def close(self) -> None:
        self.closed = True
        self._tenv = None
        try:
            self._worker.shutdown()
        except Exception:  # noqa: BLE001 - the JVM may be gone already
            pass
