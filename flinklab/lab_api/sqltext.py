"""The learner's saved SQL as a check's diagnosis reads it: a hint that names the mistake quotes what was written."""

from __future__ import annotations

from flinklab.flink.sql_split import strip_comments
from flinklab.grading.context import GradingContext
from flinklab.grading.files import FileReadError


def saved_sql(ctx: GradingContext, name: str) -> str | None:
    """The workspace's SQL file `name` without its comments (string literals and quoted identifiers kept), or None
    when there is none or it cannot be read as text (outputs graded without their SQL, e.g. copied in): a
    diagnosis then falls back on what the output shows."""
    try:
        text = ctx.read(name)
    except FileReadError:
        return None
    return None if text is None else strip_comments(text)
