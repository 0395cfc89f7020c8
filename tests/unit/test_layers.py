"""The layers of DESIGN.md are a contract that fails the build: `lint-imports` (import-linter, configured in
pyproject.toml) passes on the package as it is and breaks on one upward import, a function-level one included, on a
lab importing anything of flinklab but the lab API, and on a lab importing another lab."""

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
    assert "Contracts: 4 kept, 0 broken." in done.stdout


def test_a_function_level_import_upwards_breaks_the_build(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    procs = root / "flinklab" / "flink" / "procs.py"
    procs.write_text(procs.read_text() + "\n\ndef sneaky() -> None:\n    from flinklab.course import registry\n")
    done = _lint(root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "flinklab.flink.procs -> flinklab.course.registry" in done.stdout
    assert "Each layer imports only the layers below it BROKEN" in done.stdout


def test_a_lab_importing_past_the_lab_api_breaks_the_build(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    report = root / "flinklab" / "labs" / "joins" / "report.py"
    report.write_text(report.read_text() + "\n\ndef sneaky() -> None:\n    from flinklab.grading import values\n")
    done = _lint(root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Labs import only the lab API BROKEN" in done.stdout
    assert "flinklab.labs.joins.report -> flinklab.grading.values" in done.stdout


def test_a_lab_importing_another_lab_breaks_the_build(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    checks = root / "flinklab" / "labs" / "windows" / "checks.py"
    checks.write_text(checks.read_text() + "\n\ndef sneaky() -> None:\n    from flinklab.labs.joins import reference\n")
    done = _lint(root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Labs are independent of each other BROKEN" in done.stdout
    assert "flinklab.labs.windows.checks -> flinklab.labs.joins.reference" in done.stdout


def _flinklab_imports(package: Path) -> set[str]:
    """Every flinklab module the package's files import (function-level imports included)."""
    import ast

    found: set[str] = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])
            found |= {name for name in names if name == "flinklab" or name.startswith("flinklab.")}
    return found


def test_plug_in_labs_import_only_the_lab_api(tmp_path: Path) -> None:
    # the dedup test lab and the skeleton of `flinklab new-lab` live outside flinklab, where import-linter does
    # not look: the same rule, read from their sources
    from flinklab.usecases.newlab import write_skeleton

    skeleton = write_skeleton("topn", tmp_path)
    for package in (PROJECT / "tests" / "labs" / "flinklab-dedup" / "flinklab_dedup", skeleton / "flinklab_topn"):
        assert _flinklab_imports(package) == {"flinklab.lab_api"}, package
