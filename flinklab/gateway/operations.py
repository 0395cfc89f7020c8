"""Operations: one executed statement each, run on a thread, its rows served page by page by token.

Statuses follow Flink's OperationStatus: INITIALIZED, PENDING, RUNNING, FINISHED, CANCELED, CLOSED, ERROR,
TIMEOUT. One departure, on purpose: an operation that submitted a job (INSERT, statement set, EXECUTE PLAN) stays
RUNNING until that job ends and turns ERROR when the job fails, so that a client can wait for the job through the
gateway (Flink's gateway reports FINISHED at submission; its SQL client never looks at the status).
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Callable

from flinklab.gateway.errors import SQL_EXECUTION_EXCEPTION, wrapped
from flinklab.gateway.results import EMPTY, Page, ResultSource

TERMINAL = ("FINISHED", "CANCELED", "CLOSED", "ERROR", "TIMEOUT")


class OperationError(Exception):
    """What the gateway answers for a failed operation: the Java stack trace text of its cause."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


class FetchError(Exception):
    """A fetch the operation cannot serve (a bad token, a closed operation)."""


class Operation:
    """A statement running (or run) in a session."""

    def __init__(self, work: Callable[[], ResultSource], describe_error: Callable[..., str],
                 on_done: Callable[[], None] | None = None, settle_job: Callable[[str], None] | None = None):
        self.handle = str(uuid.uuid4())
        self.status = "PENDING"
        self._work = work
        self._describe_error = describe_error
        self._on_done = on_done
        self._settle_job = settle_job  # before a job is cancelled (ClusterJobs.settle_before_cancel)
        self._source: ResultSource | None = None
        self._cancel_job = True  # how the operation was closed (a closing session detaches a submitted job)
        self._error: str | None = None
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._token = 0
        self._page: Page | None = None  # the rows of the current token, kept for a repeated fetch
        self._page_eos = False
        self._thread = threading.Thread(target=self._run, name=f"flinklab-op-{self.handle[:8]}", daemon=True)

    def start(self) -> Operation:
        self._thread.start()
        return self

    # ---- running ---------------------------------------------------------------------------------------

    def _failed(self, exc: BaseException, summary: str | None = None) -> str:
        """The error text of this operation: Flink's SqlExecutionException over the cause's stack trace."""
        return wrapped(self._describe_error(exc),
                       f"{SQL_EXECUTION_EXCEPTION}: {summary or f'Failed to execute the operation {self.handle}.'}")

    def _set(self, status: str, error: str | None = None) -> None:
        with self._changed:
            if self.status in ("CANCELED", "CLOSED"):
                return
            self.status = status
            if error is not None:
                self._error = error
            self._changed.notify_all()

    def _run(self) -> None:
        self._set("RUNNING")
        try:
            source = self._work()
        except BaseException as exc:  # noqa: BLE001 - every failure is the operation's ERROR
            self._set("ERROR", self._failed(exc))
            self._done()
            return
        with self._changed:
            self._source = source
            stopped = self.status in ("CANCELED", "CLOSED")
            self._changed.notify_all()
        if stopped:  # closed while the statement was still being submitted (a client's Ctrl-C or SIGTERM): what it
            # started (a query's rows, its job) is stopped now, as _stop would have stopped it
            self._end(source, running=True, cancel_job=self._cancel_job)
            self._done()
            return
        if source.has_job:
            self._await_job(source)
        else:
            self._set("FINISHED")  # a query too: its rows flow on after it was submitted, as in Flink
        self._done()

    def _await_job(self, source: ResultSource) -> None:
        try:
            getattr(source.table_result, "await")()
        except BaseException as exc:  # noqa: BLE001 - the job failed (or was cancelled)
            self._set("ERROR", self._failed(exc))
            return
        self._set("FINISHED")

    def _done(self) -> None:
        if self._on_done is not None:
            self._on_done()

    def wait(self, timeout: float) -> None:
        """Until the statement has a result or failed (at most `timeout` seconds)."""
        with self._changed:
            self._changed.wait_for(lambda: self._source is not None or self.status in TERMINAL, timeout)

    def wait_ended(self, timeout: float) -> None:
        """Until the operation is no longer running (its job ended, for an INSERT), at most `timeout` seconds:
        the status call's long-poll, so a client learns of the end when it happens rather than at its next poll."""
        with self._changed:
            self._changed.wait_for(lambda: self.status in TERMINAL, timeout)

    # ---- results ---------------------------------------------------------------------------------------

    @property
    def source(self) -> ResultSource | None:
        return self._source

    def error_text(self) -> str | None:
        return self._error

    def fetch(self, token: int, max_rows: int = 10_000, wait: float = 0.0) -> tuple[str, Page]:
        """(resultType, rows) for `token`, with Flink's ResultFetcher semantics: NOT_READY while the statement
        runs (same token next), then PAYLOAD pages (maybe empty while a streaming job produces nothing; the
        previous token re-sends the last page) and EOS. Raises OperationError when the statement failed."""
        deadline = time.monotonic() + wait
        if wait > 0:
            self.wait(wait)
        with self._lock:
            source = self._source
            # a submitted job that failed still shows its first page (the job id); the failure comes after it
            job_id_page = source is not None and source.has_job and token == 0
            if self.status == "ERROR" and not job_id_page:
                raise OperationError(self._error or "")
            if self.status in ("CLOSED", "CANCELED", "TIMEOUT"):
                raise FetchError(f"Can not fetch results from the {self.handle} in {self.status} status.")
            if source is None:
                return "NOT_READY", EMPTY
            if token == self._token - 1 and self._page is not None:
                return ("EOS" if self._page_eos else "PAYLOAD"), self._page
            if token != self._token:
                expected = f"{self._token}" if self._token == 0 else f"{self._token} or {self._token - 1}"
                raise FetchError(f"Expecting token to be {expected}, but found {token}.")
        rows = source.take(max_rows, max(0.0, deadline - time.monotonic()))  # one call that waits in the JVM
        failure = source.failure() if not rows.count else None
        if failure is not None and token > 0:  # the first page still goes out: its columns and job id
            self._set("ERROR", self._failed(failure, "Error while retrieving result."))
            raise OperationError(self._error or "")
        if failure is None and not rows.count and source.finished():
            return "EOS", EMPTY
        with self._lock:
            self._page, self._page_eos = rows, False
            self._token += 1
        return "PAYLOAD", rows

    # ---- ending ----------------------------------------------------------------------------------------

    def cancel(self) -> None:
        """Stop the statement: close its rows (which cancels a query's job) and cancel a submitted job.
        A terminal operation cannot be cancelled (Flink's status transitions); close it instead."""
        with self._lock:
            if self.status in TERMINAL:
                raise FetchError(f"Failed to convert the Operation Status from {self.status} to CANCELED for "
                                 f"{self.handle}.")
        self._stop("CANCELED")

    def close(self, *, detach_job: bool = False) -> None:
        """Close the operation: a query's rows stop (its job is cancelled); a submitted job (INSERT, statement set,
        EXECUTE PLAN) is cancelled too unless `detach_job`, which is how a closing session leaves it, as Flink's
        gateway does (its INSERT operations are FINISHED at submission, so closing them touches no job)."""
        self._stop("CLOSED", cancel_job=not detach_job)

    def _stop(self, status: str, *, cancel_job: bool = True) -> None:
        with self._changed:
            if self.status in ("CANCELED", "CLOSED"):
                return
            running = self.status not in TERMINAL
            self.status = status
            self._cancel_job = cancel_job
            self._changed.notify_all()
            source = self._source
        if source is None:
            return  # still being submitted: _run stops it when it has it
        self._end(source, running=running, cancel_job=cancel_job)

    def _end(self, source: ResultSource, *, running: bool, cancel_job: bool) -> None:
        if source.has_job and not cancel_job:
            return  # detached: the rows of a submitted job (its id) are left to the job, which closing them ends
        if self._settle_job is not None and source.job_id and (running or not source.finished()):
            with contextlib.suppress(Exception):  # closing goes on whatever the cluster answers
                self._settle_job(source.job_id)  # a job cancelled as its tasks open takes a TaskManager with it
        source.close()
        if running and source.has_job:
            with contextlib.suppress(Exception):
                source.table_result.getJobClient().get().cancel()
