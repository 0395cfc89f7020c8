"""The lab data files: the ONE place that says which CSVs the cluster must have (flink-up provisions them into the
data dir, the data probe counts them, the grader reads them there)."""

from __future__ import annotations

from pathlib import Path

from flinklab.course.registry import load_labs


def lab_data_files() -> list[Path]:
    """Every discovered lab's committed CSVs (package data), sorted by file name; a lab plug-in that cannot load
    adds none (`flinklab labs` names it)."""
    labs, _ = load_labs()
    files = {path.name: path for lab in labs for path in lab.data_files()}
    return [files[name] for name in sorted(files)]
