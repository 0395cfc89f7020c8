"""The shell's history file (Flink's `~/.flink-sql-history`, `-hist PATH`), with secret values masked.

Flink's client stores every statement in clear; a `WITH ('password' = '...')` or `SET 's3.secret-key' = '...'`
then sits in a file for years. Here values of secret-looking options are masked before the line reaches the file
(the statement itself still runs with the value, and the Up arrow of this shell still recalls it unmasked). A
history file that cannot be written is one warning line and the shell goes on without saving.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit.history import FileHistory, History, InMemoryHistory

DEFAULT_HISTORY = "~/.flink-sql-history"
MASK = "******"

#: An option key whose value is a secret: names holding password/secret/token/credential, or ending in `key`.
_SECRET_KEY = re.compile(r"(password|passwd|secret|token|credential|(^|[.\-_])key$)", re.IGNORECASE)
_QUOTED = r"'(?:[^']|'')*'"
#: `'key' = 'value'` pairs: WITH (...) options and `SET 'k' = 'v'`.
_QUOTED_PAIR = re.compile(rf"({_QUOTED})(\s*=\s*)({_QUOTED})")
#: the legacy `SET key = value` / `SET key = 'value'`.
_LEGACY_SET = re.compile(rf"^(\s*SET\s+)([^'\s=]+)(\s*=\s*)({_QUOTED}|[^;\s]+)", re.IGNORECASE)


def mend(text: str) -> str:
    """`text` with undecodable input bytes (the terminal's decoder keeps them as lone surrogates) replaced by
    U+FFFD: they can be neither sent as JSON nor written to a file."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate that is no escaped byte
        return text.encode("utf-8", "replace").decode("utf-8")


def is_secret_key(key: str) -> bool:
    """True for an option key whose value should never be written down (`password`, `*.secret`, `*.key` ...)."""
    return bool(_SECRET_KEY.search(key.strip()))


def mask_secrets(statement: str) -> str:
    """`statement` with the values of secret-looking options replaced by `'******'`."""

    def quoted(match: re.Match[str]) -> str:
        key = match.group(1)[1:-1].replace("''", "'")
        if not is_secret_key(key):
            return match.group(0)
        return f"{match.group(1)}{match.group(2)}'{MASK}'"

    def legacy(match: re.Match[str]) -> str:
        if not is_secret_key(match.group(2)):
            return match.group(0)
        value = match.group(4)
        masked = f"'{MASK}'" if value.startswith("'") else MASK
        return f"{match.group(1)}{match.group(2)}{match.group(3)}{masked}"

    return _LEGACY_SET.sub(legacy, _QUOTED_PAIR.sub(quoted, statement))


class MaskingFileHistory(FileHistory):
    """prompt_toolkit's FileHistory that masks secrets on the way to the file and warns once when it cannot
    write (a full disk, a file made read-only while the shell runs)."""

    def __init__(self, filename: str, warn: Callable[[str], None]):
        super().__init__(filename)
        self._warn: Callable[[str], None] | None = warn

    def store_string(self, string: str) -> None:
        try:
            super().store_string(mask_secrets(mend(string)))
        except OSError as exc:
            if self._warn is not None:
                self._warn(unwritable_warning(Path(str(self.filename)), exc))
                self._warn = None

    def load_history_strings(self):  # type: ignore[no-untyped-def]
        try:
            yield from super().load_history_strings()
        except OSError:
            return  # unreadable: an empty history (the warning came when it was opened)


def unwritable_warning(path: Path, exc: OSError) -> str:
    return (f"[WARNING] Cannot write the history file {path}: {exc.strerror or exc}. "
            "This session's statements are not saved.")


def history_path(option: str | None) -> Path:
    """The history file: `-hist PATH` when given, else Flink's `~/.flink-sql-history`."""
    return Path(os.path.expanduser(option or DEFAULT_HISTORY))


def open_history(path: Path, warn: Callable[[str], None]) -> History:
    """A masking file history at `path`, or (one warning line) an in-memory one when the file cannot be written:
    a directory, a read-only file or folder, a parent that does not exist and cannot be made."""
    try:
        if path.is_dir():
            raise IsADirectoryError(21, "Is a directory")
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "ab"):
            pass
    except OSError as exc:
        warn(unwritable_warning(path, exc))
        return InMemoryHistory()
    return MaskingFileHistory(str(path), warn)
