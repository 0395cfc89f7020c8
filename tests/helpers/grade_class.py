"""A test class for the grader: submissions of SQL someone else wrote (the joins lab's reference SQL and one of
its typical mistakes, from flinklab/labs/joins/sql/ and sql/mistakes/ with the checks each must fail in its
expected.json) and the ones a grader must survive (correct outputs with wrong SQL, an unbounded query, an empty
submission, a file-reading attempt). Used by the live grade tests, the grader image's tests and the class report."""

from __future__ import annotations

import shutil
from pathlib import Path

from flinklab.course.registry import get_lab

DATA = Path(__file__).parent.parent / "data" / "joins"  # the captured outputs of a reference run


def mistakes_dir() -> Path:
    """The joins lab's typical mistakes and their expected.json."""
    return get_lab("joins").solution_dir / "mistakes"

#: a query over a source without end: the grader must cancel it
UNBOUNDED_SQL = """SET 'sql-client.execution.result-mode' = 'tableau';
CREATE TEMPORARY TABLE forever (x INT) WITH ('connector' = 'datagen', 'rows-per-second' = '5');
SELECT x FROM forever;
"""
#: reads the grader's machine
PASSWD_SQL = """SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'batch';
CREATE TEMPORARY TABLE pw (line STRING) WITH ('connector' = 'filesystem', 'path' = 'file:///etc/passwd',
  'format' = 'raw');
SELECT line FROM pw;
"""
ADD_JAR_SQL = "ADD JAR '/tmp/flinklab-evil.jar';\nSELECT 1;\n"
UDF_SQL = "CREATE TEMPORARY SYSTEM FUNCTION evil AS 'java.lang.Runtime';\nSELECT 1;\n"
#: count.sql that counts nothing (its forged count.out is the reference's)
WRONG_COUNT_SQL = "SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'execution.runtime-mode' = 'batch';\n" \
                  "SELECT 'users' AS tbl, CAST(0 AS BIGINT) AS n;\n"

#: name -> what the teacher expects: all checks pass, or these checks fail (with a phrase in their feedback)
KINDS = ("reference", "mistake", "forged", "unbounded", "empty", "attack")


def reference(dest: Path) -> Path:
    """The reference SQL of the joins lab, as a learner would hand it in."""
    lab = get_lab("joins")
    dest.mkdir(parents=True, exist_ok=True)
    for name in lab.solution_files:
        shutil.copyfile(lab.solution_dir / name, dest / name)
    return dest


def submission(kind: str, dest: Path) -> Path:
    """One submission of the test class in `dest` (created)."""
    if kind == "empty":
        dest.mkdir(parents=True, exist_ok=True)
        (dest / "README.md").write_text("I did not manage.\n")
        return dest
    reference(dest)
    if kind == "mistake":
        shutil.copyfile(mistakes_dir() / "interval_less_than.sql", dest / "interval.sql")
    elif kind == "forged":
        (dest / "count.sql").write_text(WRONG_COUNT_SQL)
        for out in (DATA / "outputs" / "solution").iterdir():
            shutil.copyfile(out, dest / out.name)  # the reference run's real outputs, which must not be read
    elif kind == "unbounded":
        (dest / "latest.sql").write_text(UNBOUNDED_SQL)
    elif kind == "attack":
        (dest / "unshipped.sql").write_text(PASSWD_SQL)
        (dest / "regular.sql").write_text(ADD_JAR_SQL)
        (dest / "temporal.sql").write_text(UDF_SQL)
    elif kind != "reference":
        raise ValueError(kind)
    return dest
