"""Provision the lab data: copy the labs' CSV files into the data dir the TaskManagers read.

Which files are the lab data is the caller's knowledge (the labs'); without a list, the committed
fixtures/*.csv of the settings' project are copied."""

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


def default_data_files(settings: Settings) -> list[Path]:
    """The lab data files when the caller names none: every committed fixtures/*.csv."""
    return sorted(settings.fixtures_dir.glob("*.csv")) if settings.fixtures_dir.is_dir() else []


def provision_data(settings: Settings, data_files: Sequence[Path] | None = None) -> list[Path]:
    """Copy each of `data_files` (default: every fixtures/*.csv) into `settings.data_dir`; return the files that
    were copied (identical ones are skipped). The data dir is created; an unwritable one is a UsageError naming
    how to choose another."""
    data_dir = settings.data_dir
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _not_writable(settings, exc.strerror or str(exc)) from None
    if not os.access(data_dir, os.W_OK | os.X_OK):
        raise _not_writable(settings, "permission denied")
    sources = default_data_files(settings) if data_files is None else list(data_files)
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
