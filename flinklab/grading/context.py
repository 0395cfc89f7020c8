"""What checks get: where the saved work is and where the CSVs (the source of truth) are."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass
class GradingContext:
    """What checks get: where the saved work is and where the CSVs (the source of truth) are."""

    workspace: Path
    data_dir: Path

    def read(self, name: str, limit: int | None = None) -> str | None:
        """A saved file's text (UTF-8, CRLF normalised, at most `limit` bytes), or None when it does not exist.
        Raises FileReadError (one line naming the file) when it exists but cannot be read as text."""
        from flinklab.grading import files

        try:
            return files.read_text(self.workspace / name, limit=limit or files.MAX_OUTPUT_BYTES, label=name)
        except files.MissingFileError:
            return None
