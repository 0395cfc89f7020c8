"""A built wheel works without the checkout: the labs' SQL, CSVs and guides are package data. The wheel is built from
a copy of the sources, installed into a fresh venv (dependencies from pip's cache), and that venv's `flinklab` lists
the labs, regenerates their data and runs and grades the joins lab on the live cluster."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.env import settings_env

from flinklab.course.registry import get_lab

pytestmark = pytest.mark.live
PROJECT = Path(__file__).resolve().parent.parent.parent


def _ok(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kwargs)
    assert done.returncode == 0, (cmd, done.stdout[-3000:], done.stderr[-3000:])
    return done


def test_the_wheel_runs_and_grades_a_lab_without_the_checkout(flink_cluster, tmp_path):
    src = tmp_path / "src"  # a copy: building in the checkout would leave build/ there
    # as in the checkout: the built-in labs' sql/ and data/ are links to the top-level sql/LAB/ and fixtures/LAB/
    shutil.copytree(PROJECT / "flinklab", src / "flinklab", symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    for top in ("sql", "fixtures"):
        shutil.copytree(PROJECT / top, src / top)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(PROJECT / name, src / name)
    _ok([sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path / "dist"), str(src)])
    (wheel,) = (tmp_path / "dist").glob("flinklab-*.whl")
    venv = tmp_path / "venv"
    _ok([sys.executable, "-m", "venv", str(venv)])
    _ok([str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", str(wheel)])

    env = {**settings_env(flink_cluster), "FLINKLAB_WORKSPACE": str(tmp_path / "ws"), "COLUMNS": "160",
           "PATH": f"{venv / 'bin'}:/usr/bin:/bin"}
    env.pop("PYTHONPATH", None)
    env.pop("FLINKLAB_HOME", None)
    where = _ok([str(venv / "bin" / "python"), "-c", "import flinklab; print(flinklab.__file__)"], env=env,
                cwd=tmp_path).stdout
    assert where.startswith(str(venv)), where
    flinklab = str(venv / "bin" / "flinklab")

    listed = _ok([flinklab, "labs"], env=env, cwd=tmp_path).stdout
    assert "joins: Three joins" in listed and "windows: Window TVFs" in listed

    generated = _ok([flinklab, "fixtures", "generate"], env=env, cwd=tmp_path).stdout
    installed = next(venv.glob("lib/python*/site-packages/flinklab/labs/joins/data"))
    assert f"joins: {installed / 'joins_users.csv'}" in generated, generated
    for path in get_lab("joins").data_files():  # the default output is the committed data, byte for byte
        assert (installed / path.name).read_bytes() == path.read_bytes(), path.name

    run = subprocess.run([flinklab, "run", "joins", "--solution"], env=env, cwd=tmp_path, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    checked = subprocess.run([flinklab, "check", "joins"], env=env, cwd=tmp_path, capture_output=True, text=True,
                             timeout=300)
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-3000:]
    assert "All 28 checks passed." in checked.stdout
