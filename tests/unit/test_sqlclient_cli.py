"""`sql-client.sh` as a console script where no cluster or JVM is needed: its one-line errors and exit statuses.

(The runs on a real cluster are in test_sqlclient_live.py, all marked `live`.)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers.env import settings_env

from flinklab.settings import Settings


def cli_env(settings: Settings) -> dict[str, str]:
    return settings_env(settings)


def sql_client_sh() -> str:
    return str(Path(sys.executable).with_name("sql-client.sh"))


def test_no_cluster_is_one_line_and_exit_2(tmp_settings: Settings, tmp_path: Path) -> None:
    script = tmp_path / "x.sql"
    script.write_text("SELECT 1;\n")
    run = subprocess.run(
        check=False,
        args=[sql_client_sh(), "-f", str(script)],
        env=cli_env(tmp_settings),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2
    assert run.stdout == ""
    expected = f"error: No Flink cluster answers at {tmp_settings.rest_url}. → Start one with `flink-up` "
    assert run.stderr.strip().splitlines() == [expected + "(see `flinklab status`)."]


def test_missing_file_is_one_line_and_exit_2(tmp_settings: Settings, tmp_path: Path) -> None:
    run = subprocess.run(
        check=False,
        args=[sql_client_sh(), "-f", str(tmp_path / "nope.sql")],
        env=cli_env(tmp_settings),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2
    assert len(run.stderr.strip().splitlines()) == 1 and "nope.sql does not exist" in run.stderr



@pytest.mark.parametrize(("text", "what"), [("", "is empty"), ("  \n", "is empty"),
                                            ("-- a note\n/* and a block */\n", "holds only comments")])
def test_an_empty_or_comment_only_script_is_one_line_naming_it(tmp_settings: Settings, tmp_path: Path, text: str,
                                                               what: str) -> None:
    """Checked before any cluster or gateway is asked (none runs here): a step file with nothing to run fails."""
    script = tmp_path / "step.sql"
    script.write_text(text)
    run = subprocess.run([sql_client_sh(), "-f", str(script)], env=cli_env(tmp_settings), capture_output=True,
                         text=True, timeout=60, check=False)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.strip().splitlines() == [
        f"error: SQL file {script} {what}: there is no statement to run. → Write the step's SQL into it (statements "
        "end with ';'), then run it again."]
