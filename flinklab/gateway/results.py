"""Where an operation's rows come from: a result still streaming out of the JVM, or rows the gateway made itself.

Rows are kept as Flink's gateway keeps them, once, in both of the protocol's row formats: `JSON` (typed field
values, as flink-json writes them) and `PLAIN_TEXT` (each field as Flink's RowDataToStringConverter renders it,
the text the SQL client prints).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flinklab.gateway.jvm import Jvm

#: LogicalType JSON of the `STRING` columns of results the gateway builds itself (SET;, OK).
STRING_TYPE = {"type": "VARCHAR", "nullable": True, "length": 2147483647}


def string_column(name: str) -> dict[str, Any]:
    return {"name": name, "logicalType": dict(STRING_TYPE), "comment": None}


@dataclass(frozen=True)
class Page:
    """Rows ready to send, already encoded in both row formats (the JSON arrays' items, comma-joined)."""

    count: int
    json_rows: str  # rowFormat=JSON: {"kind": ..., "fields": [typed values]}
    text_rows: str  # rowFormat=PLAIN_TEXT: {"kind": ..., "fields": [Flink's text, null for NULL]}

    def data(self, row_format: str) -> str:
        """The `data` array of a result, as JSON text."""
        return "[" + (self.json_rows if row_format == "JSON" else self.text_rows) + "]"


EMPTY = Page(0, "", "")


class ResultSource:
    """An executed statement's result: columns, rows (`take`), job id and kind, as the fetch API reports them."""

    def __init__(self, columns: list[dict[str, Any]], *, result_kind: str, is_query: bool,
                 job_id: str | None = None, table_result: Any = None):
        self.columns = columns
        self.result_kind = result_kind  # SUCCESS | SUCCESS_WITH_CONTENT
        self.is_query = is_query
        self.job_id = job_id
        self.table_result = table_result  # the Java TableResultInternal, when there is one

    @staticmethod
    def from_table_result(jvm: Jvm, result: Any, *, is_query: bool) -> ResultSource:
        pump = jvm.row_pump(result)
        described = json.loads(str(pump.describe()))  # columns, job id, kind: one py4j call, not one per field
        if not is_query and described["jobId"] is not None:
            return SubmittedJob(pump, result, described["jobId"], result_kind=described["resultKind"])
        return PumpedRows(pump, result, described["columns"], result_kind=described["resultKind"],
                          is_query=is_query, job_id=described["jobId"])

    @property
    def has_job(self) -> bool:
        return self.job_id is not None and not self.is_query

    def take(self, max_rows: int, wait: float = 0.0) -> Page:
        """Up to `max_rows` rows, waiting at most `wait` seconds for the first one or the end (maybe none)."""
        raise NotImplementedError

    def finished(self) -> bool:
        """No row will come any more (every row was taken), as of the last `take`."""
        raise NotImplementedError

    def failure(self) -> Any:
        """The Java Throwable that ended the rows early (as of the last `take`), or None."""
        return None

    def close(self) -> None:
        """Stop producing rows (cancels an unfinished job)."""


class StaticRows(ResultSource):
    """Rows the gateway computed itself (SET;, OK)."""

    def __init__(self, columns: list[dict[str, Any]], rows: list[list[str | None]], *, result_kind: str =
                 "SUCCESS_WITH_CONTENT"):
        super().__init__(columns, result_kind=result_kind, is_query=False)
        self._rows = [json.dumps({"kind": "INSERT", "fields": list(r)}, ensure_ascii=False) for r in rows]

    @staticmethod
    def ok() -> StaticRows:
        """Flink's `OK` result of a statement without content (TableResultImpl.TABLE_RESULT_OK)."""
        return StaticRows([string_column("result")], [["OK"]], result_kind="SUCCESS")

    def take(self, max_rows: int, wait: float = 0.0) -> Page:
        page, self._rows = self._rows[:max_rows], self._rows[max_rows:]
        joined = ",".join(page)  # all STRING columns: both formats are the same
        return Page(len(page), joined, joined)

    def finished(self) -> bool:
        return not self._rows


class PumpedRows(ResultSource):
    """Rows drained from the JVM by a FlinklabRowPump: one py4j call per page, and per wait for one."""

    def __init__(self, pump: Any, result: Any, columns: list[dict[str, Any]], **kwargs: Any):
        super().__init__(columns, table_result=result, **kwargs)
        self._pump = pump
        self._state = "R"  # after the last take: R (rows may come), E (the end), F (the end by a failure)

    def take(self, max_rows: int, wait: float = 0.0) -> Page:
        reply = str(self._pump.take(max_rows, max(0, round(wait * 1000))))
        head, _, rest = reply.partition("\n")
        count, _, self._state = head.partition(" ")
        if count == "0":
            return EMPTY
        json_rows, _, text_rows = rest.partition("\x01")
        return Page(int(count), json_rows, text_rows)

    def finished(self) -> bool:
        return self._state != "R"

    def failure(self) -> Any:
        return self._pump.getFailure() if self._state == "F" else None

    def close(self) -> None:
        try:
            self._pump.close()
        except Exception:  # noqa: BLE001 - after a failure closing may fail again; the first error counts
            pass


#: The column of a submitted job's result (Flink's gateway: Constants.JOB_ID).
JOB_ID_COLUMN = "job id"


class SubmittedJob(PumpedRows):
    """An INSERT, statement set, EXECUTE PLAN or CTAS: one STRING column `job id` holding the job's id, as Flink's
    gateway answers them (OperationExecutor.fetchJobId), not the TableResult's one BIGINT `-1` per sink. The pump
    stays the job's handle (closing it is how a cancelled operation lets go of the job); its rows are not served."""

    def __init__(self, pump: Any, result: Any, job_id: str, *, result_kind: str):
        super().__init__(pump, result, [string_column(JOB_ID_COLUMN)], result_kind=result_kind, is_query=False,
                         job_id=job_id)
        self._rows = [json.dumps({"kind": "INSERT", "fields": [job_id]})]

    def take(self, max_rows: int, wait: float = 0.0) -> Page:
        page, self._rows = self._rows[:max_rows], self._rows[max_rows:]
        joined = ",".join(page)
        return Page(len(page), joined, joined)

    def finished(self) -> bool:
        return not self._rows

    def failure(self) -> Any:
        return None  # a failed job ends its operation in ERROR (Operation._await_job), after the job id was served
