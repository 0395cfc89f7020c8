"""Every command `flinklab --help` lists answers its own --help (its own usage line, not the root's), `flinklab sql`
is a command (not "unexpected extra argument"), and `flinklab run` names the missing files before asking for a
cluster."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.env import free_port, settings_env


def _flinklab(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from flinklab.cli import main; main()", *args], env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(tmp_path), "COLUMNS": "200", "FLINKLAB_STATE_DIR": str(tmp_path / "state"),
            "FLINKLAB_WORKSPACE": str(tmp_path / "ws"), "FLINKLAB_DATA_DIR": str(tmp_path / "data"),
            "FLINKLAB_REST_PORT": str(free_port()), "FLINKLAB_GATEWAY_PORT": str(free_port())}


def _listed(help_text: str) -> list[str]:
    """The command names of a help page's Commands box."""
    box = help_text.split("Commands", 1)[1]
    return re.findall(r"^│ ([a-z][a-z-]*)\s", box, flags=re.M)


def test_every_listed_command_shows_its_own_usage(env):
    root = _flinklab(["--help"], env)
    assert root.returncode == 0, root.stderr
    commands = _listed(root.stdout)
    assert {"up", "down", "status", "logs", "sql", "run", "check", "labs", "new-lab", "fixtures", "image",
            "show"} <= set(commands)
    for name in commands:
        shown = _flinklab([name, "--help"], env)
        assert shown.returncode == 0, (name, shown.stderr)
        assert f"Usage: flinklab {name} " in shown.stdout, (name, shown.stdout[:300])
        if "Commands" in shown.stdout:  # a group: each of its commands too
            for sub in _listed(shown.stdout):
                inner = _flinklab([name, sub, "--help"], env)
                assert inner.returncode == 0 and f"Usage: flinklab {name} {sub} " in inner.stdout, (name, sub)


def test_sql_is_a_command_without_a_gateway(env, tmp_path):
    script = tmp_path / "q.sql"
    script.write_text("SELECT 1;\n")
    done = _flinklab(["sql", "-f", str(script)], env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "unexpected extra argument" not in done.stderr
    assert done.stderr.count("\n") == 1 and "No Flink cluster answers" in done.stderr, done.stderr


def test_run_without_the_labs_files_names_them_before_the_cluster(env, tmp_path):
    (tmp_path / "ws" / "windows").mkdir(parents=True)
    done = _flinklab(["run", "windows"], env)  # no cluster runs on these ports
    assert done.returncode == 2
    assert "No Flink cluster" not in done.stderr
    assert "ddl.sql" in done.stderr and "tumble.sql" in done.stderr and "are missing" in done.stderr, done.stderr
    done = _flinklab(["run", "windows", "--only", "hop"], env)
    assert done.returncode == 2 and "ddl.sql, hop.sql are missing" in done.stderr, done.stderr


@pytest.mark.live
def test_sql_runs_a_file_on_the_live_cluster(flink_cluster, tmp_path):
    script = tmp_path / "q.sql"
    script.write_text("SET 'sql-client.execution.result-mode' = 'tableau';\nSELECT 40 + 2 AS answer;\n")
    done = _flinklab(["sql", "-f", str(script)], settings_env(flink_cluster))
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"\|\s+42 \|", done.stdout), done.stdout
