"""PEP 249's exception classes, and Flink's errors mapped onto them with Flink's own message."""

from __future__ import annotations

from flinklab.errors import FlinklabError
from flinklab.sqlclient.printer import reason_from_server
from flinklab.sqlclient.protocol import GatewayError


class Warning(Exception):  # noqa: A001 - PEP 249 names it so
    """PEP 249: important warnings."""


class Error(Exception):
    """PEP 249: the base class of every error this module raises."""


class InterfaceError(Error):
    """PEP 249: the driver was misused (a closed cursor or connection)."""


class DatabaseError(Error):
    """PEP 249: an error of the database (here: Flink or its gateway)."""


class DataError(DatabaseError):
    """PEP 249: a value could not be processed."""


class OperationalError(DatabaseError):
    """PEP 249: the database's operation failed (no gateway, a refused token, a failed Flink job)."""


class IntegrityError(DatabaseError):
    """PEP 249: relational integrity (Flink does not enforce constraints: never raised)."""


class InternalError(DatabaseError):
    """PEP 249: the database is in a bad state."""


class ProgrammingError(DatabaseError):
    """PEP 249: the SQL is wrong (Flink's planner rejected it: parse or validation errors)."""


class NotSupportedError(DatabaseError):
    """PEP 249: a method or feature Flink does not have (transactions)."""


#: The root causes that mean "your SQL is wrong" (Flink's parser, validator and planner); anything else that
#: fails (a job, the cluster) is an OperationalError.
_SQL_MISTAKES = ("SqlParserException", "SqlParseException", "SqlValidateException", "SqlValidatorException",
                 "ValidationException", "CalciteContextException", "TableException", "ParseException")


def flink_error(exc: GatewayError) -> DatabaseError:
    """Flink's error as PEP 249's class, its message the reason `sql-client.sh` prints after `Reason:`."""
    reason = reason_from_server(exc.server_side)
    head = reason.split(":", 1)[0]
    kind = ProgrammingError if head.rsplit(".", 1)[-1] in _SQL_MISTAKES else OperationalError
    return kind(reason)


def flinklab_error(exc: FlinklabError) -> OperationalError:
    """One of flinklab's own errors (no gateway, a refused token, no cluster): its line and its hint."""
    return OperationalError(f"{exc.message} {exc.hint}" if exc.hint else exc.message)
