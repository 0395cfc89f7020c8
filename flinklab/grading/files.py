"""The one way the grader reads a file: saved outputs, plans, report.json and the lab's CSVs.

Every OS error (a directory, permission denied, a symlink loop, an I/O error, a FIFO that would block) and every
decoding problem (bytes that are not UTF-8, UTF-16 text, NUL bytes) becomes a :class:`FileReadError` whose message
is one line naming the file; a file larger than the caller's bound is refused before it is read. Callers decide
what a problem means: a failed check (an output, a plan) or the end of grading (a CSV the answers come from).
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
import time
from pathlib import Path

from flinklab.errors import FlinklabError

MIB = 1 << 20
#: Bounds on what the grader reads whole. A scale-100 changelog is about 100 MiB; anything far beyond is not a
#: saved lab output but a mistake (a redirected `yes`, a copied disk image) that would only exhaust memory.
MAX_OUTPUT_BYTES = 1024 * MIB
MAX_JSON_BYTES = 64 * MIB
MAX_CSV_BYTES = 1024 * MIB

UTF8_HINT = "Save it as UTF-8 text (an editor's 'Save with encoding' or `iconv -t UTF-8`)."


class FileReadError(FlinklabError):
    """A file the grader needs cannot be read as text; the message names it and says why."""

    def __init__(self, path: Path | str, why: str, hint: str | None = None):
        super().__init__(f"{path} {why}", hint)
        self.path = Path(path)
        self.why = why


class MissingFileError(FileReadError):
    """The file does not exist (callers often grade this as a step not run yet)."""

    def __init__(self, path: Path | str, hint: str | None = None):
        super().__init__(path, "does not exist.", hint)


def _size(n: int) -> str:
    return f"{n / MIB:.1f} MiB" if n >= MIB else f"{n} bytes"


def _os_problem(exc: OSError) -> str:
    if isinstance(exc, IsADirectoryError):
        return "is a directory, not a file."
    if isinstance(exc, PermissionError):
        return "cannot be read: permission denied."
    if exc.errno == errno.ELOOP:
        return "cannot be read: it is a symbolic link loop."
    if exc.errno == errno.ENAMETOOLONG:
        return "cannot be read: the path is too long."
    return f"cannot be read: {exc.strerror or exc}."


def read_bytes(path: Path | str, *, limit: int = MAX_OUTPUT_BYTES, label: str | None = None) -> bytes:
    """The bytes of `path` (at most `limit`); FileReadError (MissingFileError when absent) names `label` or the
    path."""
    name = label or str(path)
    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            raise FileReadError(name, "is a directory, not a file.")
        if not stat.S_ISREG(st.st_mode):
            # A FIFO would block until someone writes; a device may never end.
            raise FileReadError(name, "is not a regular file (a pipe, socket or device).")
        if st.st_size > limit:
            raise FileReadError(name, f"is {_size(st.st_size)}, more than the {_size(limit)} the grader reads.",
                                "Is it the right file? A saved lab output is far smaller.")
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except FileNotFoundError:
        raise MissingFileError(name) from None
    except NotADirectoryError:
        raise MissingFileError(name) from None  # a parent is a file: the path cannot exist
    except OSError as exc:
        raise FileReadError(name, _os_problem(exc)) from None
    if len(data) > limit:  # grew while read (or /proc-like files that report size 0)
        raise FileReadError(name, f"is more than the {_size(limit)} the grader reads.")
    return data


def decode_text(data: bytes, name: str) -> str:
    """UTF-8 text (a UTF-8 byte-order mark is dropped; CRLF and CR become LF); FileReadError otherwise."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise FileReadError(name, "is UTF-16 text, not UTF-8.", UTF8_HINT)
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise FileReadError(name, f"holds NUL bytes (line {line}): it is binary or UTF-16, not UTF-8 text.",
                            UTF8_HINT)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FileReadError(name, f"is not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}).",
                            UTF8_HINT) from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def read_text(path: Path | str, *, limit: int = MAX_OUTPUT_BYTES, label: str | None = None) -> str:
    """The text of `path`, bounded and decoded as UTF-8 (see :func:`read_bytes` and :func:`decode_text`)."""
    name = label or str(path)
    return decode_text(read_bytes(path, limit=limit, label=name), name)


def backup_path(path: Path, now: float | None = None) -> Path:
    """`count.sql.bak-20261130-041500` (with `-2`, `-3`... if that name is taken)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    candidate = path.with_name(f"{path.name}.bak-{stamp}")
    n = 2
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.bak-{stamp}-{n}")
        n += 1
    return candidate
