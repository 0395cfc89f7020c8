"""What a wait that failed reports, shared by the cluster's waits and the gateway's start-up: the error (with the
log's last lines riding along for the CLI to print), a log's last lines, an error on one line."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from flinklab.errors import ClusterError


class ClusterStartError(ClusterError):
    """The cluster did not become ready; `log_path` and `log_tail` say where to look and what it said last."""

    def __init__(self, message: str, hint: str | None = None, *, log_path: str = "", log_tail: Sequence[str] = ()):
        super().__init__(message, hint)
        self.log_path = log_path
        self.log_tail = list(log_tail)


def _is_stack_frame(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith("at ") or (stripped.startswith("... ") and stripped.endswith(" more"))


def tail_lines(path: Path, n: int = 5, skip_stack_frames: bool = True) -> list[str]:
    """The last `n` non-empty lines of a text file ([] when it does not exist).

    Java stack frames (`at ...`, `... 3 more`) are skipped by default: the `Caused by:` lines say why."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - 64 * 1024))
            text = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return []
    lines = [line for line in text.splitlines() if line.strip()]
    if skip_stack_frames:
        lines = [line for line in lines if not _is_stack_frame(line)]
    return lines[-n:]


def one_line(exc: BaseException | str, limit: int = 120) -> str:
    """An error's text on one line (whitespace collapsed), cut to `limit` characters for messages."""
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
