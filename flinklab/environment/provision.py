"""Provision the lab data: copy the labs' CSV files into the data dir the TaskManagers read.

Which files are the lab data is the caller's knowledge (the labs': flinklab.course.data.lab_data_files); this
layer knows no lab."""

from __future__ import annotations

import filecmp
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from flinklab.errors import UsageError
from flinklab.settings import Settings


def _not_writable(settings: Settings, why: str) -> UsageError:
    return UsageError(
        f"The data dir {settings.data_dir} is not writable ({why}).",
        "Choose another with FLINKLAB_DATA_DIR=/some/dir or `--data-dir /some/dir`.",
    )


def provision_data(settings: Settings, data_files: Sequence[Path]) -> list[Path]:
    """Copy each of `data_files` into `settings.data_dir`; return the files that
    were copied (identical ones are skipped). The data dir is created; an unwritable one is a UsageError naming
    how to choose another."""
    data_dir = settings.data_dir
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _not_writable(settings, exc.strerror or str(exc)) from None
    if not os.access(data_dir, os.W_OK | os.X_OK):
        raise _not_writable(settings, "permission denied")
    sources = list(data_files)
    copied: list[Path] = []
    for src in sources:
        dest = data_dir / src.name
        if dest.is_file() and filecmp.cmp(src, dest, shallow=False):
            continue
        try:
            # Write then rename: a TaskManager reading the file never sees half of it.
            tmp = dest.with_name(f".{dest.name}.tmp")
            shutil.copyfile(src, tmp)
            tmp.replace(dest)
        except OSError as exc:
            raise _not_writable(settings, exc.strerror or str(exc)) from None
        copied.append(dest)
    return copied
