"""The lab data files and workspaces `flink-up` prepares: the ONE place that says which CSVs the cluster must have
(flink-up provisions them into the data dir, the data probe counts them, the grader reads them there) and which
workspace dirs a learner works in (one per lab, under the workspace root)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from flinklab.course.registry import course_order, load_labs
from flinklab.errors import FlinklabError, UsageError
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
    """Every discovered lab's workspace (`settings.workspace(LAB)`), in the course's order (flink-up's "Next" line
    names the first), created where it is missing; a dir that is there is left exactly as it is (nothing is
    written into a workspace). UsageError (one line) when one cannot be created."""
    labs, _ = load_labs()
    workspaces = []
    for lab in course_order(labs):
        path = settings.workspace(lab.name)
        existed = path.is_dir()
        for each in (path, *path.parents):  # mkdir says only "File exists" for a link to nowhere
            if each.is_symlink() and not each.exists():
                raise UsageError(f"The workspace {path} cannot be created: {each} is a dangling symlink (to "
                                 f"{os.readlink(each)}).", "Remove the link, or make it point to a directory.")
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # also a file where the dir should be (FileExistsError)
            raise UsageError(f"Cannot create the workspace {path}: {exc.strerror or exc}.",
                             "Choose another root with --workspace DIR or FLINKLAB_WORKSPACE.") from None
        workspaces.append(LabWorkspace(lab, path, not existed))
    return workspaces


def provision_missing(settings: Settings, lab: Lab) -> list[Path]:
    """Copy the lab's CSVs that are absent from the data dir into it, as `flink-up` does (the same code): a lab
    installed after `flink-up` has none there yet. A file that is there is left as it is (another seed or scale
    may be wanted); a lab whose package holds no CSV to copy copies nothing (the reader then names what is
    missing). Returns what was copied; UsageError (one line) when the data dir is not writable."""
    try:
        sources = lab.data_files()
    except UsageError:  # a lab without a package (a test's, one under construction): nothing to copy from
        return []
    missing = [src for src in sources if src.is_file() and not os.path.lexists(settings.data_dir / src.name)]
    if not missing:
        return []
    from flinklab.environment.provision import provision_data  # here: `flinklab check` imports no cluster code

    return provision_data(settings, missing)


def provisioned_line(lab: Lab, settings: Settings, copied: list[Path]) -> str:
    """The one line saying what `provision_missing` copied."""
    names = ", ".join(path.name for path in copied)
    return (f"Provisioned the data of {lab.name} into {settings.data_dir} ({names}): it was not there (a lab "
            "installed after `flink-up`).")


def provision_for_run(settings: Settings, lab: Lab) -> list[Path]:
    """`provision_missing` for a run: unless the recorded cluster reads its data elsewhere (remote: its data dir is
    on its own hosts, and `flink-up` probed it there)."""
    # Here, not at the top: `flinklab check` imports this module and no cluster code.
    from flinklab.cluster.base import RecordUnreadable, read_record
    from flinklab.cluster.registry import backend_class

    try:
        record = read_record(settings)
        reads_local = record is None or backend_class(record.backend).reads_local_data
    except (RecordUnreadable, FlinklabError):  # an unreadable record or an unknown backend: the run says so
        reads_local = True
    return provision_missing(settings, lab) if reads_local else []
