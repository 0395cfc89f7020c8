"""The learner's path (issue 32): `flinklab labs` lists the labs in the course's order, each with what it needs
first; `flinklab labs LAB` says to start with ddl.sql when the workspace has none; printed to a pipe at 80 columns,
no file name is broken across lines."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from flinklab.course.registry import course_order, get_lab


def _flinklab(args: list[str], tmp_path: Path, columns: int = 200) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(tmp_path), "COLUMNS": str(columns), "TERM": "dumb",
           "FLINKLAB_STATE_DIR": str(tmp_path / "state"), "FLINKLAB_WORKSPACE": str(tmp_path / "ws")}
    return subprocess.run([sys.executable, "-c", "from flinklab.cli import main; main()", *args], env=env,
                          capture_output=True, text=True, timeout=120)  # stdout is a pipe, as in `| less`


def _lab(name: str, after: tuple[str, ...] = ()):
    return dataclasses.replace(get_lab("windows"), name=name, after=after)


def test_course_order_puts_each_lab_after_those_it_names():
    labs = [_lab("c", ("b",)), _lab("b", ("a",)), _lab("a"), _lab("d", ("nowhere",))]
    assert [lab.name for lab in course_order(labs)] == ["a", "b", "c", "d"]
    # a cycle is broken by name, and nothing is lost
    assert [lab.name for lab in course_order([_lab("y", ("x",)), _lab("x", ("y",))])] == ["x", "y"]


def test_labs_lists_the_course_in_order_with_what_each_needs_first(tmp_path: Path):
    (tmp_path / "ws" / "joins").mkdir(parents=True)
    (tmp_path / "ws" / "joins" / "ddl.sql").write_text("CREATE TABLE t (a INT);\n", encoding="utf-8")
    shown = _flinklab(["labs"], tmp_path)
    assert shown.returncode == 0, shown.stderr
    path = shown.stdout[shown.stdout.index("The labs in the course's order"):].splitlines()
    ws = tmp_path / "ws"
    assert path[1:4] == [
        f"  1. windows (start here): start with ddl.sql: it declares the tables every step reads, and {ws}/windows "
        "has none yet",
        f"  2. joins (after windows): ddl.sql is in {ws}/joins: the steps' files come next",
        f"  3. dedup (needs no other lab): start with ddl.sql: it declares the tables every step reads, and "
        f"{ws}/dedup has none yet",
    ]
    tables = [m.group(1) for m in re.finditer(r"^(\w+): .*$", shown.stdout, re.M) if m.group(1) in ("windows",
                                                                                                  "joins", "dedup")]
    assert tables == ["windows", "joins", "dedup"]


def test_labs_lab_says_start_with_ddl_sql_on_an_empty_workspace(tmp_path: Path):
    (tmp_path / "ws" / "windows").mkdir(parents=True)
    shown = _flinklab(["labs", "windows"], tmp_path)
    assert shown.returncode == 0, shown.stderr
    line = (f"Start with ddl.sql: it declares the tables every step reads, and {tmp_path}/ws/windows has none "
            "yet.")
    assert line in shown.stdout.splitlines()
    (tmp_path / "ws" / "windows" / "ddl.sql").write_text("CREATE TABLE t (a INT);\n", encoding="utf-8")
    assert "Start with ddl.sql" not in _flinklab(["labs", "windows"], tmp_path).stdout


@pytest.mark.parametrize("args", [["labs"], ["labs", "windows"], ["labs", "joins"], ["labs", "dedup"]],
                         ids=" ".join)
def test_no_file_name_is_broken_at_80_columns(args: list[str], tmp_path: Path):
    shown = _flinklab(args, tmp_path, columns=80)
    assert shown.returncode == 0, shown.stderr
    labs = [get_lab(lab) for lab in ("windows", "joins", "dedup")]
    names = {name for lab in labs for name in (*lab.files, *lab.fixtures.files)}
    words = names | {lab.name for lab in labs} | {step.id for lab in labs for step in lab.steps}
    # `tumble_agg.ou` then `t` on the next line: a token (a sentence's dot aside) that is a strict beginning of a
    # file name and no name or step of its own
    tokens = {t.rstrip(".") for t in re.findall(r"[\w.-]+", shown.stdout)}
    broken = sorted(t for t in tokens - words if re.search(r"[_.-]", t) and any(n.startswith(t) for n in names))
    assert broken == [], broken
    for name in ("tumble_agg.out", "hop_reversed.sql", "interval-plan.json", "temporal-plan.json"):
        if args[-1] in ("labs", "windows" if "tumble" in name or "hop" in name else "joins"):
            assert name in shown.stdout, name
