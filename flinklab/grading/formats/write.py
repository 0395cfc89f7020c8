"""A result in one format, as bytes or written whole to a file."""

from __future__ import annotations

import json
from pathlib import Path

from flinklab.errors import UsageError
from flinklab.files import write_atomic
from flinklab.grading.formats.codegrade import codegrade
from flinklab.grading.formats.flinklab_json import flinklab_json
from flinklab.grading.formats.gradescope import gradescope
from flinklab.grading.formats.junit import junit
from flinklab.grading.formats.model import FORMATS, GradeResult
from flinklab.grading.formats.prairielearn import prairielearn


def _json(data: dict) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def render_result(result: GradeResult, fmt: str) -> bytes:
    """`result` in format `fmt` (one of FORMATS; another is a UsageError naming them)."""
    if fmt == "gradescope":
        return _json(gradescope(result))
    if fmt == "prairielearn":
        return _json(prairielearn(result))
    if fmt == "junit":
        return junit(result)
    if fmt == "json":
        return _json(flinklab_json(result))
    if fmt == "codegrade":
        return codegrade(result).encode("utf-8")
    raise UsageError(f"Unknown results format {fmt!r}.", f"Choose one of: {', '.join(FORMATS)}.")


def write_result(result: GradeResult, fmt: str, path: Path) -> None:
    """Write `result` in format `fmt` to `path` whole (through a temporary name: never half a file)."""
    data = render_result(result, fmt)
    try:
        write_atomic(path, data, mkdir=True)
    except OSError as exc:
        raise UsageError(f"Cannot write {path}: {exc.strerror or exc}.", "Choose a writable path.") from None
