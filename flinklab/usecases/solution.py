"""Install a lab's reference SQL into its workspace without losing anything the learner wrote.

The lab texts use fixed paths (`/opt/lab/fixtures/data` for the CSVs, `/root/flink` for the workspace); the
installed copy points where this machine keeps them (settings.data_dir, settings.workspace_root).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from flinklab.course.textpaths import rewrite_paths
from flinklab.errors import UsageError
from flinklab.files import write_atomic
from flinklab.grading.files import backup_path
from flinklab.lab_api import Lab, Step
from flinklab.settings import Settings


@dataclass
class InstallResult:
    workspace: Path
    installed: list[Path] = field(default_factory=list)  # files written (new or changed)
    unchanged: list[Path] = field(default_factory=list)  # already identical; left alone
    backups: list[tuple[Path, Path]] = field(default_factory=list)  # (learner file, where it was moved)


def write_keeping_backup(path: Path, text: str, result: InstallResult) -> None:
    """Write `text` to `path`; an existing different file is first moved to a timestamped backup."""
    if path.exists():
        if path.read_text(encoding="utf-8", errors="replace") == text:
            result.unchanged.append(path)
            return
        backup = backup_path(path)
        path.rename(backup)
        result.backups.append((path, backup))
    write_atomic(path, text)
    result.installed.append(path)


def solution_files_for(lab: Lab, steps: Sequence[Step]) -> tuple[str, ...]:
    """The reference files a run of `steps` installs: the init file (when a step uses it) and each step's SQL file;
    all of the lab's (its extra files too) for a run of every step. A run of one step (`--only`) installs no other
    step's answer."""
    if {s.id for s in steps} >= {s.id for s in lab.steps}:
        return lab.solution_files
    names = [*([lab.init_file] if any(s.uses_init for s in steps) else []), *(s.sql_file for s in steps)]
    return tuple(dict.fromkeys(names))


def install_solution(settings: Settings, lab: Lab, files: Sequence[str] | None = None) -> InstallResult:
    """Copy the reference SQL of `lab` (`files` of it, default all) into its workspace, rewriting the default
    paths; a learner's different file is first moved to a backup (`FILE.bak-TIMESTAMP`), never overwritten."""
    source_dir = lab.solution_dir
    files = lab.solution_files if files is None else tuple(files)
    missing = [name for name in files if not (source_dir / name).is_file()]
    if missing:
        raise UsageError(
            f"The reference solution of {lab.name!r} lacks {', '.join(missing)} in {source_dir}.",
            f"Reinstall the package of the lab ({lab.package or lab.home}): its sql/ folder is package data.",
        )
    workspace = settings.workspace(lab.name)
    try:
        workspace.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(
            f"Cannot create the workspace {workspace}: {exc.strerror or exc}.",
            "Choose another with --workspace or FLINKLAB_WORKSPACE.",
        ) from None
    result = InstallResult(workspace=workspace)
    for name in files:
        sql = (source_dir / name).read_text(encoding="utf-8")
        sql = rewrite_paths(sql, settings.data_dir, settings.workspace_root)
        write_keeping_backup(workspace / name, sql, result)
    return result
