"""The lab data files: the ONE place that says which CSVs the cluster must have (flink-up provisions them into the
data dir, the data probe counts them, the grader reads them there)."""

from __future__ import annotations

from pathlib import Path

from flinklab.course.registry import load_labs
from flinklab.settings import Settings


def lab_data_files(settings: Settings) -> list[Path]:
    """Every discovered lab's committed CSVs (package data), sorted by file name; a lab plug-in that cannot load
    adds none (`flinklab labs` names it). `settings` is the seam for a data source other than the packages."""
    del settings  # today every lab's data is its package's; the parameter keeps the callers' signature stable
    labs, _ = load_labs()
    files = {path.name: path for lab in labs for path in lab.data_files()}
    return [files[name] for name in sorted(files)]
