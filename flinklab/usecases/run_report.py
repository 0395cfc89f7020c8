"""report.json after a run: built from the saved outputs, a partial run changing only what it changed, a file the
learner wrote kept as a backup; and the error of an output that cannot be written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from flinklab.errors import FlinklabError
from flinklab.files import write_atomic
from flinklab.lab_api import Lab
from flinklab.usecases.solution import InstallResult, write_keeping_backup

if TYPE_CHECKING:
    from flinklab.usecases.run import LabRun


class OutputWriteError(FlinklabError):
    """A step's output (or report.json) could not be written; the previous file, if any, is left as it was."""

    def __init__(self, path: Path, exc: OSError):
        super().__init__(f"Cannot write {path}: {exc.strerror or exc}; the previous {path.name}, if any, is "
                         f"unchanged.", f"Free some space in {path.parent} (or fix its permissions) and run again.")



def outputs_report(lab: Lab, workspace: Path) -> dict:
    """What report.json would be from the saved outputs now ({} when they cannot say)."""
    try:
        return lab.build_report(workspace)
    except FlinklabError:
        return {}


def write_report(lab: Lab, workspace: Path, run: LabRun, before: dict | None = None, partial: bool = False) -> None:
    """report.json from the saved outputs.

    `before` is what the outputs gave before the run. A partial run (`--only`) changes only the fields whose
    value the run changed, so the other fields (a value you wrote for a step that did not run) stay as they are;
    a full run writes every field. The file is left alone when its JSON would not change, and moved to a backup
    first only when it holds something the earlier outputs did not give (a value or key you wrote, a file that is
    not a JSON object): replacing flinklab's own report loses nothing.
    """
    try:
        after = lab.build_report(workspace)
    except FlinklabError as exc:
        run.report_error = exc.message + (f" ({exc.hint})" if exc.hint else "")
        return
    before = before or {}
    path = workspace / lab.report_file
    existing = _json_object(path)
    report = after
    if partial and existing is not None:
        report = dict(existing)
        for name in dict.fromkeys([*before, *after]):
            if not _same_value(before.get(name), after.get(name)):
                if name in after:
                    report[name] = after[name]
                else:
                    report.pop(name, None)
        order = [*lab.report_fields, *report]  # the lab's fields in its order, then keys of your own
        report = {name: report[name] for name in dict.fromkeys(order) if name in report}
    run.report_path = path
    if existing is not None and _same_value(existing, report):  # the same JSON: nothing to replace or back up
        return
    yours = path.exists() and (existing is None or any(
        not _same_value(value, before.get(name)) for name, value in existing.items()
        if not _same_value(value, report.get(name))))
    text = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
    written = InstallResult(workspace=workspace)
    try:
        if yours:
            write_keeping_backup(path, text, written)
        else:
            write_atomic(path, text)
    except OSError as exc:  # a full workspace: no half-written report.json (a replaced one was backed up first)
        run.report_path = None
        raise OutputWriteError(path, exc) from None
    if written.backups:
        run.report_backup = written.backups[0][1]


def _json_object(path: Path) -> dict | None:
    """`path` as a JSON object; None when it is missing or is not one."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    return found if isinstance(found, dict) else None


def _same_value(a: object, b: object) -> bool:
    """The same JSON (key order aside; 1, 1.0 and true stay different, as they are to the grader's type checks)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
