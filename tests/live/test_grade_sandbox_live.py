"""`flinklab grade` (the console command) on a real cluster against the sandbox's bypasses: a Unicode literal
(`U&'\\002fetc\\002fpasswd'`), a literal continued over lines, an OPTIONS hint, and plan files at relative paths
(which would land in the gateway's working directory). Each is refused with its one-line reason, nothing of the
file reaches the results, no plan is written outside the workspace, and the reference still scores full marks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.env import settings_env
from helpers.grade_class import reference

pytestmark = pytest.mark.live

#: step file -> (its SQL, a phrase of the reason it is refused)
BYPASSES = {
    "unshipped.sql": ("SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'execution.runtime-mode' = 'batch';\n"
                      "CREATE TABLE pw (line STRING) WITH ('connector' = 'filesystem', "
                      "'path' = U&'\\002fetc\\002fpasswd', 'format' = 'raw');\nSELECT * FROM pw;\n",
                      "the path '/etc/passwd' is outside the lab's data files and its workspace"),
    "count.sql": ("SET 'execution.runtime-mode' = 'batch';\n"
                  "CREATE TABLE pw (line STRING) WITH ('connector' = 'filesystem', 'path' = '/et'\n"
                  "  'c/passwd', 'format' = 'raw');\nSELECT * FROM pw;\n",
                  "the path '/etc/passwd' is outside"),
    "latest.sql": ("SELECT * FROM orders /*+ OPTIONS('path' = u&'!002fetc!002fpasswd' UESCAPE '!') */;\n",
                   "the path '/etc/passwd' is outside"),
    "plans.sql": ("SET 'table.plan.force-recompile' = 'true';\n"
                  "CREATE TABLE bh (x INT) WITH ('connector' = 'blackhole');\n"
                  "COMPILE AND EXECUTE PLAN 'pwned.json' FOR INSERT INTO bh SELECT order_id FROM orders;\n",
                  "the plan file 'pwned.json' is a relative path"),
    "regular.sql": ("EXECUTE PLAN 'ddl.sql';\n", "the plan file 'ddl.sql' is a relative path"),
}


def grade(env: dict[str, str], submission: Path, results: Path) -> tuple[dict, str]:
    """`flinklab grade joins SUBMISSION --results RESULTS` as a teacher runs it: (the results, stderr)."""
    done = subprocess.run([sys.executable, "-c", "from flinklab.cli import main; main()", "grade", "joins",
                           str(submission), "--results", str(results), "--format", "json"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(results.read_text()), done.stderr


def test_bypasses_are_refused_and_the_reference_scores_full_marks(flink_cluster, tmp_path):
    env = {**settings_env(flink_cluster), "COLUMNS": "200"}
    attack = reference(tmp_path / "mallory")
    for name, (sql, _why) in BYPASSES.items():
        (attack / name).write_text(sql)
    found, stderr = grade(env, attack, tmp_path / "mallory.json")
    steps = {s["step"]: s for s in found["steps"]}
    for name, (_sql, why) in BYPASSES.items():
        step = steps[name.removesuffix(".sql")]
        assert step["status"] == "refused" and f"refused in {name}: {why}" in step["error"], step
        assert "\n" not in step["error"]  # one line
    assert {s["status"] for s in found["steps"] if s["step"] + ".sql" not in BYPASSES} == {"ok"}
    text = json.dumps(found)
    assert "root:x:0:0" not in text  # nothing of the file reached the feedback
    assert found["summary"] and stderr.count(found["summary"]) == 1  # said once
    assert not list(Path(flink_cluster.state_dir).rglob("pwned.json")) and not Path("pwned.json").exists()

    honest, stderr = grade(env, reference(tmp_path / "alice"), tmp_path / "alice.json")
    assert [c["name"] for c in honest["checks"] if not c["passed"]] == []
    assert honest["score"] == honest["max_score"] > 0
    assert {s["status"] for s in honest["steps"]} == {"ok"}
    assert stderr.count(honest["summary"]) == 1
