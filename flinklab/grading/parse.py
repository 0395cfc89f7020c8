"""Parse saved sql-client output: the real client's and this project's runner's.

CONTRACT (implemented by the grading-machinery work; lab modules rely on exactly this API):
- Real client quirks: `[INFO]`/`[ERROR]`/`[WARNING]` lines, `Flink SQL> ` prompts with the statement echo glued
  before a table border, footers `N rows in set (x.xx seconds)`, `Empty set`, `Received a total of N rows`,
  `<NULL>`, CRLF, truncated output (no footer).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ResultTable:
    """One printed result (tableau)."""

    columns: list[str]  # header names, without the streaming `op` column
    rows: list[list[str | None]]  # cell texts, stripped; None where the cell was <NULL>
    ops: list[str] | None = None  # per row "+I"/"-U"/"+U"/"-D" in streaming; None in batch (no op column)
    footer_rows: int | None = None  # the count the footer states; None when no footer was printed (truncated)

    @property
    def streaming(self) -> bool:
        return self.ops is not None

    @property
    def complete(self) -> bool:
        return self.footer_rows is not None

    def records(self) -> list[dict[str, str | None]]:
        """Rows as dicts keyed by column name (ops not included)."""
        return [dict(zip(self.columns, row)) for row in self.rows]

    def ops_seen(self) -> set[str]:
        return set(self.ops or ())


@dataclass
class ParsedOutput:
    tables: list[ResultTable] = field(default_factory=list)  # in output order; `Empty set` is a table with 0 rows
    errors: list[str] = field(default_factory=list)  # the reason text after `[ERROR] Could not execute SQL statement.`
    infos: list[str] = field(default_factory=list)  # text of `[INFO] ...` lines

    @property
    def table(self) -> ResultTable | None:
        """The last result table (a step normally prints one)."""
        return self.tables[-1] if self.tables else None


def parse_output(text: str) -> ParsedOutput:
    """Parse a whole saved `.out` file."""
    raise NotImplementedError("delivered by the grading-machinery work")
