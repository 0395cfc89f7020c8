"""`flinklab new-lab NAME` writes a lab package that installs, registers under the entry points and grades."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def _flinklab(args: list[str], tmp_path: Path, site: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(tmp_path), "COLUMNS": "200", "FLINKLAB_STATE_DIR": str(tmp_path / "state"),
           "FLINKLAB_WORKSPACE": str(tmp_path / "ws"), "FLINKLAB_DATA_DIR": str(tmp_path / "data")}
    if site is not None:
        env["PYTHONPATH"] = str(site)
    return subprocess.run([sys.executable, "-c", "from flinklab.cli import main; main()", *args], env=env,
                          capture_output=True, text=True, timeout=300)


def test_new_lab_writes_a_package_that_installs_and_registers(tmp_path: Path):
    made = _flinklab(["new-lab", "topn", "--dir", str(tmp_path / "src")], tmp_path)
    assert made.returncode == 0, made.stderr
    root = tmp_path / "src" / "flinklab-topn"
    assert f"Wrote {root}" in made.stdout

    site = tmp_path / "site"  # a real install (a wheel built by setuptools) into a target dir, not the venv
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                                "--target", str(site), str(root)], capture_output=True, text=True, timeout=240)
    assert installed.returncode == 0, installed.stderr
    assert (site / "flinklab_topn" / "sql" / "count.sql").is_file()  # package data came along
    assert (site / "flinklab_topn" / "data" / "topn_items.csv").is_file()

    listed = _flinklab(["labs"], tmp_path, site)
    assert listed.returncode == 0 and "topn: The topn lab" in listed.stdout, listed.stdout + listed.stderr
    assert listed.stderr == ""

    generated = _flinklab(["fixtures", "generate", "topn", "--out", str(tmp_path / "data")], tmp_path, site)
    assert generated.returncode == 0, generated.stderr
    committed = (site / "flinklab_topn" / "data" / "topn_items.csv").read_text()
    assert (tmp_path / "data" / "topn_items.csv").read_text() == committed  # the committed CSV is the default

    (tmp_path / "ws" / "topn").mkdir(parents=True)
    checked = _flinklab(["check", "topn"], tmp_path, site)  # nothing written yet: every check fails with a hint
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "count: items per category" in checked.stdout and "count.out does not exist" in checked.stdout
    assert "flinklab run topn --only count" in checked.stdout


def test_new_lab_refuses_a_bad_name_and_an_existing_dir(tmp_path: Path):
    bad = _flinklab(["new-lab", "Top-N", "--dir", str(tmp_path)], tmp_path)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "'Top-N' is not a lab name" in bad.stderr
    (tmp_path / "flinklab-topn").mkdir()
    again = _flinklab(["new-lab", "topn", "--dir", str(tmp_path)], tmp_path)
    assert again.returncode == 2 and "exists already" in again.stderr
