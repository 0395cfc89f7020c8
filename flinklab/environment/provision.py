"""Provision the lab data: copy the labs' CSV files into the data dir the TaskManagers read (`provision`), or give
a backend whose cluster reads elsewhere (remote) the probe that checks it has them.

Which files are the lab data is the caller's knowledge (the labs': flinklab.course.data.lab_data_files); this
layer knows no lab."""

from __future__ import annotations

import filecmp
import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from flinklab.cluster.base import ClusterBackend
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


def provision(settings: Settings, backend: ClusterBackend, data_files: Sequence[Path]) -> list[Path]:
    """Copy the lab data into the data dir when `backend`'s cluster reads it from this host; return what was
    copied. A cluster elsewhere (remote) must already have it: its `up` checks that instead, with the data probe
    given here (through a gateway of this process; the up use case replaces it with one through the SQL
    gateway it starts)."""
    if not backend.reads_local_data:
        set_data_probe(settings, backend, data_files, None)
        return []
    return provision_data(settings, data_files)


def set_data_probe(settings: Settings, backend: ClusterBackend, data_files: Sequence[Path],
                   gateway_url: Callable[[], str] | None) -> None:
    """Give an attaching backend its data probe: through the gateway `gateway_url()` names (None: one started in
    this process for the probe)."""
    if not backend.reads_local_data and hasattr(backend, "data_probe"):
        from flinklab.environment.dataprobe import probe_lab_data

        backend.data_probe = lambda url: probe_lab_data(settings, url, data_files, gateway_url)
