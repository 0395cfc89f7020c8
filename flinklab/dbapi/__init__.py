"""flinklab.dbapi: a PEP 249 (DB-API 2.0) driver for Flink SQL, over Flink's SQL Gateway REST protocol.

    import flinklab.dbapi
    conn = flinklab.dbapi.connect()             # the gateway `flink-up` started, its token included
    cur = conn.cursor()
    cur.execute("SELECT tier, COUNT(*) FROM users GROUP BY tier")
    cur.fetchall()

One connection is one gateway session: `SET`s and `CREATE`s persist from statement to statement, as in
`sql-client.sh`. `connect(url, token, **session_config)` names another gateway (any Flink SQL Gateway), its token,
and the session's options (`connect(**{"execution.runtime-mode": "batch"})`).

Results: a query's changelog arrives row by row. `fetchone`/`fetchmany` return its rows as they come (`cursor.kinds`
holds their kinds, `+I`, `-U`, `+U`, `-D`); `fetchall` waits for the end of the result and returns the table the
rest of the changelog folds into (the fold the shell's table view uses), which for an insert-only result is simply
its rows. An unbounded (streaming) query never ends: read it with `fetchmany`, and stop it with `cursor.close()`
(which cancels its Flink job). An `INSERT` returns when its job has ended (`cursor.job_id` names it), as
`sql-client.sh -f` waits for it. There are no transactions: `commit` does nothing, `rollback` has nothing to undo.
"""

from __future__ import annotations

import datetime as _dt
import time as _time

from flinklab.dbapi.connection import Connection, connect
from flinklab.dbapi.cursor import Cursor
from flinklab.dbapi.errors import (
    DatabaseError,
    DataError,
    Error,
    IntegrityError,
    InterfaceError,
    InternalError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
    Warning,
)
from flinklab.dbapi.values import BINARY, DATETIME, NUMBER, ROWID, STRING

apilevel = "2.0"
#: Threads may share the module but not connections (a connection is one gateway session, used in order).
threadsafety = 1
#: `cursor.execute("... WHERE tier = ?", ("gold",))`
paramstyle = "qmark"

Date = _dt.date
Time = _dt.time
Timestamp = _dt.datetime
Binary = bytes


def DateFromTicks(ticks: float) -> _dt.date:  # noqa: N802 - PEP 249's names
    return Date(*_time.localtime(ticks)[:3])


def TimeFromTicks(ticks: float) -> _dt.time:  # noqa: N802
    return Time(*_time.localtime(ticks)[3:6])


def TimestampFromTicks(ticks: float) -> _dt.datetime:  # noqa: N802
    return Timestamp(*_time.localtime(ticks)[:6])


__all__ = [
    "BINARY", "DATETIME", "NUMBER", "ROWID", "STRING", "Binary", "Connection", "Cursor", "DataError",
    "DatabaseError", "Date", "DateFromTicks", "Error", "IntegrityError", "InterfaceError", "InternalError",
    "NotSupportedError", "OperationalError", "ProgrammingError", "Time", "TimeFromTicks", "Timestamp",
    "TimestampFromTicks", "Warning", "apilevel", "connect", "paramstyle", "threadsafety",
]
