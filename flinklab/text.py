"""Small text helpers shared by the runner, the lab runner and the CLI."""

from __future__ import annotations


def first_line(text: str | None) -> str:
    """The first line of `text` that is not blank, stripped; "" when there is none."""
    return next((line.strip() for line in (text or "").splitlines() if line.strip()), "")
