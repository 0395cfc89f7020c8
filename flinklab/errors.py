"""Exit statuses and the one exception type a user can cause.

Every error a user can trigger is a :class:`FlinklabError` with a one-line message and an optional hint; the CLI
catches it once and renders it. A traceback is a bug.
"""

from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    SUCCESS = 0
    #: A command ran but its result is negative (a check failed, a statement failed).
    FAILURE = 1
    #: The command could not do its work (bad input, no cluster, grading could not run).
    ERROR = 2
    ERROR_CTRL_C = 130


class FlinklabError(Exception):
    """An error the user can act on: a one-line message and a hint saying what to do."""

    exit_status: ExitStatus = ExitStatus.ERROR

    def __init__(self, message: str, hint: str | None = None, *, exit_status: ExitStatus | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        if exit_status is not None:
            self.exit_status = exit_status

    def __str__(self) -> str:
        return self.message


class ClusterError(FlinklabError):
    """The cluster cannot be started, reached or stopped."""


class NoClusterError(ClusterError):
    def __init__(self, rest_url: str):
        super().__init__(
            f"No Flink cluster answers at {rest_url}.",
            "Start one with `flink-up` (see `flinklab status`).",
        )


class UsageError(FlinklabError):
    """Bad input: a missing file, an unknown lab or step, an invalid option value."""
