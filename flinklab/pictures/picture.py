"""A picture as a page shows it: an inline SVG, its caption, and lines listed under it. Generic: labs build them."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Picture:
    """An inline SVG with a caption, and lines the page lists under it (differences, notes)."""

    kind: str  # "windows" | "plan" | "none" (a note instead of a picture)
    caption: str
    svg: str
    lines: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    lines_title: str = "difference(s)"
