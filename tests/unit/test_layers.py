"""The layers of DESIGN.md are a contract that fails the build: `lint-imports` (import-linter, configured in
pyproject.toml) passes on the package as it is and breaks on one upward import, a function-level one included."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent.parent
LINT = Path(sys.executable).parent / "lint-imports"


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}  # this copy of the package, not the installed one
    return subprocess.run([str(LINT)], cwd=root, env=env, capture_output=True, text=True, timeout=300, check=False)


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(PROJECT / "flinklab", tmp_path / "flinklab", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(PROJECT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_package_keeps_its_layers(tmp_path: Path) -> None:
    done = _lint(_copy(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 2 kept, 0 broken." in done.stdout


def test_a_function_level_import_upwards_breaks_the_build(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    procs = root / "flinklab" / "flink" / "procs.py"
    procs.write_text(procs.read_text() + "\n\ndef sneaky() -> None:\n    from flinklab.course import registry\n")
    done = _lint(root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "flinklab.flink.procs -> flinklab.course.registry" in done.stdout
    assert "Each layer imports only the layers below it BROKEN" in done.stdout
