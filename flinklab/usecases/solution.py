"""Install a lab's reference SQL into its workspace without losing anything the learner wrote.

The lab texts use fixed paths (`/opt/lab/fixtures/data` for the CSVs, `/root/flink` for the workspace); the
installed copy points where this machine keeps them (settings.data_dir, settings.workspace_root).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from flinklab.course.textpaths import rewrite_paths
from flinklab.errors import UsageError
from flinklab.grading.files import backup_path
from flinklab.lab_api import Lab
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
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    result.installed.append(path)


def install_solution(settings: Settings, lab: Lab) -> InstallResult:
    """Copy the reference SQL of `lab` into its workspace, rewriting the default paths."""
    source_dir = lab.solution_dir
    missing = [name for name in lab.solution_files if not (source_dir / name).is_file()]
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
    for name in lab.solution_files:
        sql = (source_dir / name).read_text(encoding="utf-8")
        sql = rewrite_paths(sql, settings.data_dir, settings.workspace_root)
        write_keeping_backup(workspace / name, sql, result)
    return result
