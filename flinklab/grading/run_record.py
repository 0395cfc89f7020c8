"""What a run of SQL into an output file leaves beside it for the grader: digests of what ran and of what it wrote.

An output echoes its `-f` statements, so the grader sees from the output alone when STEP.sql changed after it
(flinklab.grading.freshness); the `-i` file (ddl.sql) is not echoed. So at the end of a run whose output is a
regular file, `sql-client.sh` (stdout redirected to a file, with at least one `-i` file) and `flinklab run` (each
STEP.out) write one small JSON file beside the output, `.flinklab/OUT.json` (`OUT` the output's name):

    {"version": 1,
     "output": {"sha256": ...},                                    the output's bytes as finally written
     "init": [{"path": "ddl.sql", "sha256": ..., "sql_sha256": ...}],   each -i file, in order
     "script": {"path": "tumble.sql", "sha256": ..., "sql_sha256": ...}}   the -f file (null for stdin)

Paths are relative to the output's folder (the workspace can move); `sha256` is of a file's bytes, `sql_sha256` of
its SQL with comments and spacing aside (what the grader compares, as it compares echoed statements). A record
describes an output only while that output's digest is still `output.sha256`: any other writer of the file
(real Flink's client, an editor, a failed call) leaves a record that no longer matches, and then it says nothing.
Recording never fails a run (an unwritable folder, a vanished file: no record) and prints nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from flinklab.files import write_atomic
from flinklab.flink.sql_split import strip_comments

RECORD_DIR = ".flinklab"
VERSION = 1
#: the largest output a record is made of (the grader reads no more either) and the largest SQL or record file read
MAX_OUTPUT_BYTES = 1024 << 20
MAX_SQL_BYTES = 4 << 20
MAX_RECORD_BYTES = 64 << 10

#: a statement's tokens: a quoted part whole (a string, a quoted identifier), a word, or one other character
SQL_TOKEN = re.compile(r"'(?:[^']|'')*'|`(?:[^`]|``)*`|\"(?:[^\"]|\"\")*\"|\w+|[^\w\s]")


def sql_tokens(sql: str) -> list[str]:
    """The tokens of `sql`, comments and spacing aside (`TUMBLE(TABLE` is `TUMBLE(\\n  TABLE`)."""
    return SQL_TOKEN.findall(strip_comments(sql))


def sql_digest(data: bytes) -> str | None:
    """sha256 of a SQL file's tokens (its text read as the client reads it: UTF-8, any newline as `\\n`); None
    when it is not UTF-8 text."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return hashlib.sha256("\x1f".join(sql_tokens(text)).encode("utf-8")).hexdigest()


def _read(path: Path, limit: int) -> bytes | None:
    """The bytes of a regular file of at most `limit` bytes; None for anything else."""
    try:
        with open(path, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            data = f.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


def file_sha256(path: Path, limit: int = MAX_OUTPUT_BYTES) -> str | None:
    """sha256 of a regular file's bytes (read in blocks); None when it is not one, too large or unreadable."""
    digest = hashlib.sha256()
    size = 0
    try:
        with open(path, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            while block := f.read(1 << 20):
                size += len(block)
                if size > limit:
                    return None
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def record_path(out_file: Path) -> Path:
    """Where the record of `out_file` is: `.flinklab/NAME.json` beside it."""
    return out_file.parent / RECORD_DIR / f"{out_file.name}.json"


def _rel(path: Path, folder: str) -> str:
    """`path` relative to `folder` (both resolved), as the record and the grader name it."""
    return os.path.relpath(os.path.realpath(path), folder)


def _sql_entry(path: Path, folder: str) -> dict[str, str | None] | None:
    data = _read(path, MAX_SQL_BYTES)
    if data is None:
        return None
    return {"path": _rel(path, folder), "sha256": hashlib.sha256(data).hexdigest(), "sql_sha256": sql_digest(data)}


def record_run(out_file: Path, init_files: Sequence[Path], script_file: Path | None) -> Path | None:
    """Write the record of a finished run that wrote `out_file` from `init_files` and `script_file` (None: stdin);
    the record's path, or None when none could be made (never raises). The SQL files are read now, after the run:
    one saved during the run makes a record the output does not match the SQL of, never one that blames it."""
    try:
        folder = os.path.realpath(out_file.parent)
        output = file_sha256(out_file)
        init = [_sql_entry(Path(p), folder) for p in init_files]
        script = _sql_entry(Path(script_file), folder) if script_file is not None else None
        if output is None or None in init or (script_file is not None and script is None):
            return None  # a file that vanished or grew too large meanwhile: nothing true to record
        record = {"version": VERSION, "output": {"sha256": output}, "init": init, "script": script}
        path = record_path(out_file)
        path.parent.mkdir(exist_ok=True)
        write_atomic(path, json.dumps(record, indent=1) + "\n")
        return path
    except Exception:  # recording is a courtesy to the grader: a run never fails for it
        return None


def stdout_file() -> Path | None:
    """The regular file this process's stdout (fd 1, as `sys.stdout`) writes to (`> out`, `>> out`), on Linux;
    None for a terminal, a pipe, a deleted or renamed file, or anything else."""
    try:
        if sys.stdout is None or sys.stdout.fileno() != 1:
            return None
        own = os.fstat(1)
        if not stat.S_ISREG(own.st_mode):
            return None
        path = Path(os.readlink("/proc/self/fd/1"))
        named = os.stat(path)
    except (OSError, ValueError, AttributeError):  # no /proc, a stream without a file (tests), a closed fd
        return None
    if not path.is_absolute() or (named.st_dev, named.st_ino) != (own.st_dev, own.st_ino):
        return None  # "/tmp/x (deleted)", or the name now belongs to another file
    return path


def record_stdout_run(init_files: Sequence[Path], script_file: Path | None) -> Path | None:
    """`record_run` for a `sql-client.sh` call whose stdout is a regular file beside one of the `-i` files it ran
    (a lab workspace: `-i ddl.sql ... > STEP.out`; the `-i` file is the one thing an output cannot tell by itself);
    None otherwise, so an output written anywhere else gets no `.flinklab/` dir beside it. Call it after stdout is
    flushed."""
    if not init_files:
        return None
    out_file = stdout_file()
    if out_file is None:
        return None
    folder = os.path.realpath(out_file.parent)
    if not any(os.path.realpath(Path(p).parent) == folder for p in init_files):
        return None
    return record_run(out_file, init_files, script_file)


@dataclass(frozen=True)
class RunRecord:
    """A record read back: the output digest and, per path relative to the output's folder, the SQL digests."""

    output_sha256: str
    init_sql: dict[str, str]  # path -> sql_sha256


def read_record(out_file: Path) -> RunRecord | None:
    """The record of `out_file`, or None when there is none or it is not one this version wrote."""
    data = _read(record_path(out_file), MAX_RECORD_BYTES)
    try:
        record = json.loads(data) if data is not None else None
        if not isinstance(record, dict) or record.get("version") != VERSION:
            return None
        output = record["output"]["sha256"]
        init = {e["path"]: e["sql_sha256"] for e in record["init"]
                if isinstance(e.get("path"), str) and isinstance(e.get("sql_sha256"), str)}
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    return RunRecord(output, init) if isinstance(output, str) else None


def changed_init(out_file: Path, init_file: Path) -> bool:
    """True only when the record of `out_file` describes it as it is (its digest) and says it ran `init_file`
    with other SQL than the file holds now (comments and spacing aside). No record, another output, an `init_file`
    the run did not read, or one that cannot be read now: False (nothing is known)."""
    record = read_record(out_file)
    if record is None:
        return False
    try:
        key = _rel(init_file, os.path.realpath(out_file.parent))
    except (OSError, ValueError):
        return False
    recorded = record.init_sql.get(key)
    if recorded is None or file_sha256(out_file) != record.output_sha256:
        return False
    data = _read(init_file, MAX_SQL_BYTES)
    now = sql_digest(data) if data is not None else None
    return now is not None and now != recorded
