"""A lab's guide (Markdown in its package, `Lab.guide_file`), cut into its `##` sections so `flinklab labs LAB`
prints it step by step."""

from __future__ import annotations

from flinklab.course.lab import Lab
from flinklab.errors import UsageError


def guide_sections(lab: Lab) -> list[tuple[str, str]]:
    """[(heading, Markdown text)]: the introduction (heading ""), then one entry per `## ` section; [] without a
    guide. UsageError (one line) when the lab names a guide its package lacks."""
    if not lab.guide_file:
        return []
    path = lab.root / lab.guide_file
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"The guide of {lab.name!r} cannot be read: {path}: {exc.strerror or exc}.",
                         f"Reinstall the package of the lab ({lab.package or lab.home}).") from None
    sections: list[tuple[str, list[str]]] = [("", [])]
    fence = False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence  # a `## ` inside a code block is code, not a heading
        if line.startswith("## ") and not fence:
            sections.append((line[3:].strip(), []))
        else:
            sections[-1][1].append(line)
    return [(heading, "\n".join(lines).strip()) for heading, lines in sections if heading or "\n".join(lines).strip()]
