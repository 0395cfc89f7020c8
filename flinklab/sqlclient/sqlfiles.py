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


def read_script(path: Path) -> str:
    """The text of an `-f` file, which must hold at least one statement: an empty file, or one of comments only,
    is one UsageError line naming it (Flink's client would run nothing and exit 0, and a saved step would look
    run)."""
    from flinklab.flink.sql_split import split_statements

    text = read_sql(path)
    if not split_statements(text):
        what = "is empty" if not text.strip() else "holds only comments"
        raise UsageError(f"SQL file {path} {what}: there is no statement to run.",
                         "Write the step's SQL into it (statements end with ';'), then run it again.")
    return text
