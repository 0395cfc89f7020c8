"""Reading the SQL files given to `-i`/`-f` (pure Python: the CLI checks them before the runner's JVM starts)."""

from __future__ import annotations

from pathlib import Path

from flinklab.errors import UsageError


def read_sql(path: Path) -> str:
    """The text of a SQL file; a missing, directory, unreadable or non-UTF-8 path is one UsageError line."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"SQL file {path} does not exist.", "Check the path given to -i/-f.") from None
    except IsADirectoryError:
        raise UsageError(f"{path} is a directory, not a SQL file.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"Cannot read SQL file {path}: {exc}") from None
