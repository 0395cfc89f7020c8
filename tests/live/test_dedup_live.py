"""The third lab proves the plug-in API: tests/labs/flinklab-dedup is its own package (installed by
`scripts/install.sh --test`), registered under the entry points, and no file of flinklab/ names it. On the live
cluster `flinklab run dedup --solution` then `flinklab check dedup` pass. Its declared mistake (a keep-last where
keep-first was asked) is run by the lab conformance suite (tests/live/test_lab_conformance.py), as every lab's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.env import settings_env

from flinklab.course.registry import available_labs, get_lab

pytestmark = pytest.mark.live
FLINKLAB = Path(__file__).resolve().parent.parent.parent / "flinklab"


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from flinklab.cli import main; main()", *args], env=env,
                          capture_output=True, text=True, timeout=300)


def test_no_file_of_flinklab_names_the_dedup_lab():
    # "dedup" alone is a word of Flink's plans (Deduplicate): the lab is named by its package and its quoted name
    needles = ("flinklab_dedup", "flinklab-dedup", '"dedup"', "'dedup'", "dedup_events")
    named = [str(p) for p in FLINKLAB.rglob("*") if p.is_file() and p.suffix in (".py", ".toml", ".md", ".sql")
             and any(n in p.read_text(encoding="utf-8", errors="replace") for n in needles)]
    assert named == []
    assert "dedup" in available_labs() and get_lab("dedup").package == "flinklab_dedup"


def test_dedup_runs_and_grades_on_the_live_cluster(flink_cluster, tmp_path):
    env = {**settings_env(flink_cluster), "FLINKLAB_WORKSPACE": str(tmp_path / "ws"), "COLUMNS": "160"}
    listed = _cli(env, "labs")
    assert listed.returncode == 0 and "dedup: Deduplication with ROW_NUMBER()" in listed.stdout, listed.stderr

    run = _cli(env, "run", "dedup", "--solution")
    assert run.returncode == 0, run.stdout + run.stderr
    workspace = tmp_path / "ws" / "dedup"
    assert json.loads((workspace / "report.json").read_text()) == {"unique_events": 10, "users": 3}
    checked = _cli(env, "check", "dedup", "--json", str(tmp_path / "grade.json"))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "All 4 checks passed." in checked.stdout
    assert json.loads((tmp_path / "grade.json").read_text())["score"] == 8
