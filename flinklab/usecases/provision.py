"""The lab data files and workspaces `flink-up` prepares: the ONE place that says which CSVs the cluster must have
(flink-up provisions them into the data dir, the data probe counts them, the grader reads them there) and which
workspace dirs a learner works in (one per lab, under the workspace root)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from flinklab.course.registry import built_in, load_labs
from flinklab.errors import UsageError
from flinklab.lab_api import Lab
from flinklab.settings import Settings


def lab_data_files() -> list[Path]:
    """Every discovered lab's committed CSVs (package data), sorted by file name; a lab plug-in that cannot load
    adds none (`flinklab labs` names it)."""
    labs, _ = load_labs()
    files = {path.name: path for lab in labs for path in lab.data_files()}
    return [files[name] for name in sorted(files)]


@dataclass(frozen=True)
class LabWorkspace:
    """A lab's workspace dir and whether this call created it."""

    lab: Lab
    path: Path
    created: bool


def lab_workspaces(settings: Settings) -> list[LabWorkspace]:
    """Every discovered lab's workspace (`settings.workspace(LAB)`), flinklab's own labs first (flink-up's "Next"
    line names the first), created where it is missing; a dir that is there is left exactly as it is (nothing is
    written into a workspace). UsageError (one line) when one cannot be created."""
    labs, _ = load_labs()
    labs.sort(key=lambda lab: not built_in(lab.name))  # stable: alphabetical within each group
    workspaces = []
    for lab in labs:
        path = settings.workspace(lab.name)
        existed = path.is_dir()
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # also a file where the dir should be (FileExistsError)
            raise UsageError(f"Cannot create the workspace {path}: {exc.strerror or exc}.",
                             "Choose another root with --workspace DIR or FLINKLAB_WORKSPACE.") from None
        workspaces.append(LabWorkspace(lab, path, not existed))
    return workspaces
