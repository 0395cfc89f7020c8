"""What the learner wrote, read from a step's saved SQL, for hints that name the mistake: a GROUP BY without
window_end, the gap of a SESSION window, a processing-time attribute in a window's DESCRIPTOR, the columns a
Top-N's ranking is partitioned by. Each returns None when the SQL does not show the mistake (or there is no SQL).

Regular expressions over the SQL without comments: a lab's few shapes, not a parser; a query they do not read
falls back on the hint that names the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MINUTE_MS = 60_000
_UNIT_MS = {"SECOND": 1000, "MINUTE": MINUTE_MS, "HOUR": 60 * MINUTE_MS, "DAY": 24 * 60 * MINUTE_MS}

# GROUP BY's list ends at the clause or bracket that closes it
_GROUP_BY = re.compile(r"\bGROUP\s+BY\s+(.+?)(?=\)|;|\bHAVING\b|\bORDER\b|\bLIMIT\b|\bUNION\b|\bWINDOW\b|\Z)",
                       re.IGNORECASE | re.DOTALL)
# an aggregate over window_end (MAX(window_end), LAST_VALUE(t.window_end), ...)
_HIDDEN_END = re.compile(r"\b(\w+)\s*\(\s*(?:[\w`\"]+\.)?[`\"]?window_end[`\"]?\s*\)", re.IGNORECASE)
_SESSION_GAP = re.compile(r"\bSESSION\s*\(.*?\b(INTERVAL\s*'\s*(\d+)\s*'\s*(SECOND|MINUTE|HOUR|DAY)S?)\b",
                          re.IGNORECASE | re.DOTALL)
# a window TVF call: its first argument is a table (the legacy group window functions take a time column)
_WINDOW_TVF = re.compile(r"\b(?:TUMBLE|HOP|CUMULATE|SESSION)\s*\(\s*(?:TABLE\b|DATA\s*=>)", re.IGNORECASE)
_DESCRIPTOR = re.compile(r"\bDESCRIPTOR\s*\(\s*(?:[\w`\"]+\.)?[`\"]?(\w+)[`\"]?\s*\)", re.IGNORECASE)
# ROW_NUMBER() (or RANK, DENSE_RANK) OVER (PARTITION BY ... ORDER BY ...)
_PARTITION_BY = re.compile(r"\b(?:ROW_NUMBER|RANK|DENSE_RANK)\s*\(\s*\)\s*OVER\s*\(\s*"
                           r"PARTITION\s+BY\s+(.+?)\s+ORDER\s+BY\b", re.IGNORECASE | re.DOTALL)


def _column(part: str) -> str:
    """A column reference without qualifier and quotes, lower case."""
    return part.strip().split(".")[-1].strip("`\"").lower()


def _columns(listed: str) -> list[str]:
    return [_column(p) for p in listed.split(",") if p.strip()]


@dataclass(frozen=True)
class GroupingWithoutEnd:
    """A GROUP BY that lists window_start but not window_end: `grouped` as written, and the aggregate that hides
    window_end in the select list ("MAX(window_end)"), if any."""

    grouped: str
    hidden_by: str | None

    def named(self) -> str:
        hidden = f" ({self.hidden_by} only hides it)" if self.hidden_by else ""
        return f"GROUP BY {self.grouped} has no window_end{hidden}"


def grouping_without_end(sql: str | None) -> GroupingWithoutEnd | None:
    """The first GROUP BY of `sql` that groups a window TVF's rows by window_start without window_end (a GROUP BY
    on a time floor, with no TVF, is another mistake)."""
    if not sql or not _WINDOW_TVF.search(sql):
        return None
    for found in _GROUP_BY.finditer(sql):
        columns = _columns(found.group(1))
        if "window_start" in columns and "window_end" not in columns:
            hidden = _HIDDEN_END.search(sql)
            return GroupingWithoutEnd(" ".join(found.group(1).split()),
                                      f"{hidden.group(1).upper()}(window_end)" if hidden else None)
    return None


def session_gap_ms(sql: str | None) -> tuple[int, str] | None:
    """The gap of the SESSION TVF in `sql`, in ms, with its interval as written ("INTERVAL '10' MINUTES")."""
    found = _SESSION_GAP.search(sql or "")
    if found is None:
        return None
    return int(found.group(2)) * _UNIT_MS[found.group(3).upper()], " ".join(found.group(1).split())


def proctime_descriptor(sql: str | None, ddl: str | None) -> str | None:
    """The column of a window DESCRIPTOR in `sql` that the step's SQL or ddl.sql defines as PROCTIME() (a
    processing-time attribute), or "PROCTIME()" when the descriptor is the call itself."""
    if not sql:
        return None
    if re.search(r"\bDESCRIPTOR\s*\(\s*PROCTIME\s*\(", sql, re.IGNORECASE):
        return "PROCTIME()"
    both = f"{sql}\n{ddl or ''}"
    for found in _DESCRIPTOR.finditer(sql):
        column = re.escape(found.group(1))
        if re.search(rf"(?:\b{column}[`\"]?\s+AS\s+PROCTIME\s*\(|\bPROCTIME\s*\(\s*\)\s+(?:AS\s+)?[`\"]?{column}\b)",
                     both, re.IGNORECASE):
            return found.group(1)
    return None


def ranking_partition(sql: str | None) -> list[str] | None:
    """The columns the ranking in `sql` is partitioned by (qualifiers and quotes dropped), or None."""
    found = _PARTITION_BY.search(sql or "")
    return None if found is None else _columns(found.group(1))
