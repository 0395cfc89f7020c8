"""`flinklab grade` says its summary line once, whatever the format and wherever the results go (a submission whose
every step is refused grades without a cluster)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from flinklab.course.registry import get_lab
from flinklab.grading.formats import FORMATS

#: the summary as a line of its own (inside JSON or XML it is a value, not a line)
SUMMARY = re.compile(r"\d+ of \d+ checks failed\. Points [\d.]+/[\d.]+\.")


def refused_submission(dest):
    lab = get_lab("joins")
    dest.mkdir()
    for step in lab.steps:
        (dest / step.sql_file).write_text("ADD JAR '/tmp/x.jar';\n")
    return dest


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("to_file", [False, True])
def test_the_summary_is_said_once(tmp_path, fmt, to_file):
    sub = refused_submission(tmp_path / "sub")
    args = ["grade", "joins", str(sub), "--format", fmt]
    if to_file:
        args += ["--results", str(tmp_path / "out" / "results")]
    data = tmp_path / "data"
    data.mkdir()
    for path in get_lab("joins").data_files():
        shutil.copyfile(path, data / path.name)
    env = {**os.environ, "FLINKLAB_STATE_DIR": str(tmp_path / "state"), "FLINKLAB_WORKSPACE": str(tmp_path / "ws"),
           "FLINKLAB_DATA_DIR": str(data), "COLUMNS": "200"}
    done = subprocess.run([sys.executable, "-c", "from flinklab.cli import main; main()", *args], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    assert done.returncode == 0, done.stdout
    summaries = [line for line in done.stdout.splitlines() if SUMMARY.fullmatch(line.strip())]
    assert len(summaries) == 1, done.stdout
    assert "refused in" in (done.stdout if not to_file else (tmp_path / "out" / "results").read_text())
