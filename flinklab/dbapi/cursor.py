"""A DB-API cursor: one statement at a time on its connection's session, its result read page by page."""

from __future__ import annotations

import datetime as dt
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from flinklab.dbapi.errors import InterfaceError, NotSupportedError, ProgrammingError, flink_error, flinklab_error
from flinklab.dbapi.values import convert_row, converters, describe
from flinklab.errors import FlinklabError
from flinklab.flink.sql_split import split_statements
from flinklab.sqlclient.protocol import GatewayError, Page
from flinklab.sqlclient.shell.fold import DEFAULT_MAX_ROWS, TableFold

if TYPE_CHECKING:
    from flinklab.dbapi.connection import Connection

_SHORT_KINDS = {"INSERT": "+I", "UPDATE_BEFORE": "-U", "UPDATE_AFTER": "+U", "DELETE": "-D"}
#: how long one status call may wait on the gateway for a submitted job (it answers when the job ends)
_JOB_WAIT_SECONDS = 1.0

Row = tuple[Any, ...]


class Cursor:
    """PEP 249's cursor. See the module's docstring for how streaming results read."""

    arraysize = 1

    def __init__(self, connection: Connection):
        self.connection = connection
        self.description: list[tuple[Any, ...]] | None = None
        self.rowcount = -1
        self.job_id: str | None = None
        #: the kinds (+I, -U, +U, -D) of the rows the last fetch returned
        self.kinds: list[str] = []
        self.closed = False
        self._operation: str | None = None
        self._pages: Iterator[Page] | None = None
        self._buffer: deque[tuple[str, Row]] = deque()
        self._convert: list[Callable[[str], Any]] = []
        self._received = 0

    # ---- statements ------------------------------------------------------------------------------------

    def execute(self, operation: str, parameters: Sequence[Any] | None = None) -> Cursor:
        """Run one statement (a trailing `;` is fine). A query's rows are then read with the fetch methods."""
        self._check_open()
        self._finish()
        statements = split_statements(bind(operation, parameters))
        if len(statements) != 1:
            raise ProgrammingError(f"execute() runs one statement; this text has {len(statements)}.")
        api, session = self.connection.api, self.connection.session
        try:
            self._operation = api.execute(session, statements[0])
            self._pages = api.pages(session, self._operation)
            first = next(p for p in self._pages if p.result_type != "NOT_READY")
            if first.is_query or (first.job_id is None and first.result_kind != "SUCCESS"):
                self._start_result(first)
            elif first.job_id is not None:
                self.job_id = first.job_id
                self._wait_for_job(first)
        except GatewayError as exc:
            self._finish()
            raise flink_error(exc) from None
        except FlinklabError as exc:
            self._finish()
            raise flinklab_error(exc) from None
        except BaseException:
            self._finish()
            raise
        return self

    def executemany(self, operation: str, seq_of_parameters: Sequence[Sequence[Any]]) -> Cursor:
        for parameters in seq_of_parameters:
            self.execute(operation, parameters)
        return self

    def _start_result(self, first: Page) -> None:
        self.description = [describe(c) for c in first.columns]
        self._convert = converters(first.columns)
        self._take(first)

    def _take(self, page: Page) -> None:
        for row in page.rows:
            self._buffer.append((_SHORT_KINDS.get(row["kind"], "+I"), convert_row(row["fields"], self._convert)))
        self._received += len(page.rows)
        if page.result_type == "EOS":
            self._pages = None
            self.rowcount = self._received

    def _wait_for_job(self, first: Page) -> None:
        api, session, operation = self.connection.api, self.connection.session, self._operation
        while True:
            status = api.status(session, operation, wait=_JOB_WAIT_SECONDS)
            if status == "ERROR" and first.next_uri:
                api.fetch(first.next_uri)  # the page after the job id raises the job's failure
            if status not in ("PENDING", "RUNNING", "INITIALIZED"):
                return
            time.sleep(0.05)

    # ---- results -----------------------------------------------------------------------------------------

    def _more(self) -> bool:
        """Fetch pages until one has rows or the result ends; False when there is nothing more."""
        while self._pages is not None:
            try:
                page = next(self._pages)
            except StopIteration:
                self._pages = None
                break
            except GatewayError as exc:
                self._pages = None
                raise flink_error(exc) from None
            except FlinklabError as exc:
                self._pages = None
                raise flinklab_error(exc) from None
            self._take(page)
            if page.rows:
                return True
        return bool(self._buffer)

    def fetchone(self) -> Row | None:
        rows = self.fetchmany(1)
        return rows[0] if rows else None

    def fetchmany(self, size: int | None = None) -> list[Row]:
        """The next `size` rows (default `arraysize`), waiting for them as they arrive; fewer only at the end of
        the result (tools such as jupysql read "fewer" as "the end"), none after it."""
        self._check_result()
        size = self.arraysize if size is None else size
        while len(self._buffer) < size and self._pages is not None:
            self._more()
        taken = [self._buffer.popleft() for _ in range(min(size, len(self._buffer)))]
        self.kinds = [kind for kind, _ in taken]
        return [row for _, row in taken]

    def fetchall(self) -> list[Row]:
        """The rest of the result, waiting for its end, as the table its changelog folds into."""
        self._check_result()
        while self._more() and self._pages is not None:
            pass
        fold = TableFold(DEFAULT_MAX_ROWS)
        fold.apply(self._buffer)
        self._buffer.clear()
        rows = fold.snapshot()
        self.kinds = ["+I"] * len(rows)
        return rows

    def __iter__(self) -> Iterator[Row]:
        while (row := self.fetchone()) is not None:
            yield row

    # ---- the rest of PEP 249 -------------------------------------------------------------------------------

    def setinputsizes(self, sizes: Any) -> None:
        pass

    def setoutputsize(self, size: Any, column: Any = None) -> None:
        pass

    def callproc(self, procname: str, parameters: Sequence[Any] = ()) -> None:
        raise NotSupportedError("Flink SQL has no stored procedures to call this way; use execute('CALL ...').")

    def close(self) -> None:
        """Stop reading: the statement's operation is closed (a query still running has its Flink job cancelled)."""
        self._finish()
        self.closed = True

    def __enter__(self) -> Cursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _finish(self) -> None:
        operation, self._operation = self._operation, None
        self._pages = None
        self._buffer.clear()
        self.description, self.rowcount, self.job_id, self._received = None, -1, None, 0
        if operation is not None and not self.connection.closed:
            try:
                self.connection.api.close_operation(self.connection.session, operation)
            except (GatewayError, FlinklabError):
                pass  # clean-up: the gateway may be gone, which the next call reports

    def _check_open(self) -> None:
        if self.closed:
            raise InterfaceError("The cursor is closed.")

    def _check_result(self) -> None:
        self._check_open()
        if self.description is None:
            raise ProgrammingError("The last statement returned no rows (or none ran): no results to fetch.")


def literal(value: Any) -> str:
    """A Python value as a Flink SQL literal."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float, Decimal)):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, dt.time):
        return f"TIME '{value.isoformat()}'"
    if isinstance(value, (bytes, bytearray)):
        return f"X'{bytes(value).hex()}'"
    return "'" + str(value).replace("'", "''") + "'"


def bind(operation: str, parameters: Sequence[Any] | None) -> str:
    """`operation` with each `?` outside quotes and comments replaced by the next parameter as a literal."""
    if not parameters:
        return operation
    values = iter(parameters)
    out: list[str] = []
    i, n, quote = 0, len(operation), ""
    while i < n:
        ch = operation[i]
        if quote:
            out.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
            out.append(ch)
        elif operation.startswith("--", i):
            end = operation.find("\n", i)
            end = n if end < 0 else end
            out.append(operation[i:end])
            i = end
            continue
        elif ch == "?":
            try:
                out.append(literal(next(values)))
            except StopIteration:
                raise ProgrammingError("More `?` placeholders than parameters.") from None
        else:
            out.append(ch)
        i += 1
    if next(values, _END) is not _END:
        raise ProgrammingError("More parameters than `?` placeholders.")
    return "".join(out)


_END = object()
