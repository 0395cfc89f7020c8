"""A lab's guide (Markdown in its package, `Lab.guide_file`), cut into its `##` sections so `flinklab labs LAB`
prints it step by step, with this machine's paths where the guide writes the lab texts' defaults."""

from __future__ import annotations

import re

from flinklab.course.textpaths import TEXT_DATA_DIR, TEXT_WORKSPACE_ROOT
from flinklab.errors import UsageError
from flinklab.lab_api import Lab
from flinklab.settings import DEFAULT_REST_PORT, Settings

#: the Web UI address a guide writes (what `flink-up` serves with the default settings)
TEXT_REST_URL = f"http://127.0.0.1:{DEFAULT_REST_PORT}"
#: a default path ends where a path name cannot go on (`/root/flinkx` is another path)
_END = r"(?![\w.-])"


def localize(text: str, settings: Settings) -> str:
    """`text` with the lab texts' defaults (`/opt/lab/fixtures/data`, `~/flink` and `/root/flink`, the Web UI at
    127.0.0.1:8081) replaced by this machine's data dir, workspace root and REST address."""
    root = str(settings.workspace_root)
    text = re.sub(re.escape(TEXT_DATA_DIR) + _END, lambda _: str(settings.data_dir), text)
    text = re.sub(r"(?<![\w/.~-])~/flink" + _END, lambda _: root, text)
    text = re.sub(r"(?<![\w.~-])" + re.escape(TEXT_WORKSPACE_ROOT) + _END, lambda _: root, text)  # file:///root/...
    return re.sub(re.escape(TEXT_REST_URL) + r"(?![\w:])", lambda _: settings.remote_url or settings.rest_url, text)


def guide_sections(lab: Lab, settings: Settings | None = None) -> list[tuple[str, str]]:
    """[(heading, Markdown text)]: the introduction (heading ""), then one entry per `## ` section; [] without a
    guide. With `settings`, the lab texts' default paths are this machine's (`localize`). UsageError (one line)
    when the lab names a guide its package lacks."""
    if not lab.guide_file:
        return []
    path = lab.root / lab.guide_file
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"The guide of {lab.name!r} cannot be read: {path}: {exc.strerror or exc}.",
                         f"Reinstall the package of the lab ({lab.package or lab.home}).") from None
    if settings is not None:
        text = localize(text, settings)
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
