"""Writing a file whole: readers see the old file or the new one, never half of one."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path


def write_atomic(path: Path, data: str | bytes, *, mkdir: bool = False) -> None:
    """Write `data` (a str as UTF-8) to `path` through a temporary file beside it, renamed into place.

    The temporary, `.NAME.tmp-PID-THREAD`, is this thread's own (two writers of one file, in two processes or on two
    threads of one, never share one) and is removed when anything fails, the exception raised unchanged. `mkdir`
    first creates the missing parents."""
    if mkdir:
        path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    try:
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise
