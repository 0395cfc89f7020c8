"""A learner's real round trip on the session's cluster: `sql-client.sh -i ddl.sql -f tumble.sql > tumble.out 2>&1`
in a shell leaves its record beside tumble.out; the step grades; ddl.sql's watermark is then changed without running
the step again, and `flinklab check` fails the step in one line; `flinklab run --only tumble` runs it again (and
records it), and it grades again. An output written through a pipe gets no record.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.env import settings_env

from flinklab.course.registry import get_lab
from flinklab.settings import Settings
from flinklab.usecases.check import grade_lab
from flinklab.usecases.run import run_lab
from flinklab.usecases.solution import install_solution

LAB = get_lab("windows")
WATERMARK = "  WATERMARK FOR order_time AS order_time\n)"
LATE_WATERMARK = "  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND\n)"


def _tumble(settings: Settings) -> list:
    checks = [r for r in grade_lab(settings, LAB).results if r.step == "tumble"]
    assert checks
    return checks


@pytest.mark.live
def test_changed_ddl_after_a_shell_run_fails_the_step_until_it_runs_again(flink_cluster: Settings,
                                                                            tmp_path: Path) -> None:
    settings = flink_cluster.with_overrides(workspace_root=tmp_path / "ws")
    install_solution(settings, LAB)
    workspace = settings.workspace("windows")
    client = Path(sys.executable).with_name("sql-client.sh")
    subprocess.run(f"'{client}' -i ddl.sql -f tumble.sql > tumble.out 2>&1", shell=True, cwd=workspace,
                   env=settings_env(settings), timeout=600, check=True)
    record = json.loads((workspace / ".flinklab" / "tumble.out.json").read_text(encoding="utf-8"))
    assert [e["path"] for e in record["init"]] == ["ddl.sql"] and record["script"]["path"] == "tumble.sql"
    assert all(r.passed for r in _tumble(settings)), [(r.name, r.message) for r in _tumble(settings)]

    ddl = workspace / "ddl.sql"
    assert ddl.read_text(encoding="utf-8").count(WATERMARK) == 1
    ddl.write_text(ddl.read_text(encoding="utf-8").replace(WATERMARK, LATE_WATERMARK), encoding="utf-8")
    checks = _tumble(settings)
    assert {(r.passed, r.message) for r in checks} == {
        (False, "ddl.sql was changed after tumble.out was written: run the step again.")}
    assert "flinklab run windows --only tumble" in checks[0].hint

    run = run_lab(settings, LAB, only="tumble")
    assert run.steps[0].ok, run.steps[0].error
    record = json.loads((workspace / ".flinklab" / "tumble.out.json").read_text(encoding="utf-8"))
    assert record["init"][0]["sha256"] == hashlib.sha256(ddl.read_bytes()).hexdigest()  # flinklab run recorded it
    assert record["output"]["sha256"] == hashlib.sha256((workspace / "tumble.out").read_bytes()).hexdigest()
    assert all(r.passed for r in _tumble(settings)), [(r.name, r.message) for r in _tumble(settings)]

    # through a pipe: stdout is no file, so nothing is recorded for what `cat` writes
    subprocess.run(f"'{client}' -i ddl.sql -f tumble.sql 2>&1 | cat > piped.out", shell=True, cwd=workspace,
                   env=settings_env(settings), timeout=600, check=True)
    assert "Flink SQL> " in (workspace / "piped.out").read_text(encoding="utf-8")
    assert not (workspace / ".flinklab" / "piped.out.json").exists()
