"""The grader's sandbox: every lab's reference SQL passes it; what reaches outside the lab is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

import flinklab
from flinklab.course.registry import available_labs, get_lab
from flinklab.flink.sql_split import split_statements
from flinklab.usecases.grade_sandbox import Sandbox


def sandbox_for(lab_name: str, tmp_path: Path) -> Sandbox:
    lab = get_lab(lab_name)
    plans = tuple(name for s in lab.steps for name in s.writes)
    return Sandbox(tmp_path / "data", lab.fixtures.files, tmp_path / "ws" / lab.name, plans)


@pytest.mark.parametrize("lab_name", available_labs())
def test_the_reference_sql_passes_once_retargeted(tmp_path, lab_name):
    lab = get_lab(lab_name)
    sandbox = sandbox_for(lab_name, tmp_path)
    for name in lab.solution_files:
        sql = sandbox.retarget((lab.solution_dir / name).read_text())
        assert sandbox.refusals(sql) == [], name
        assert "/opt/lab/fixtures/data" not in sql and "/root/flink" not in sql


def test_a_learners_own_paths_are_retargeted_by_file_name(tmp_path):
    sandbox = sandbox_for("joins", tmp_path)
    sql = ("CREATE TABLE users (a STRING) WITH ('connector' = 'filesystem', "
           "'path' = 'file:///home/alice/data/joins_users.csv', 'format' = 'csv');\n"
           "COMPILE PLAN '/home/alice/flink/joins/regular-plan.json' FOR INSERT INTO s SELECT * FROM users;")
    out = sandbox.retarget(sql)
    assert f"'file://{tmp_path / 'data' / 'joins_users.csv'}'" in out
    assert f"'{tmp_path / 'ws' / 'joins' / 'regular-plan.json'}'" in out
    assert sandbox.refusals(out) == []


@pytest.mark.parametrize("statement, why", [
    ("CREATE TABLE pw (line STRING) WITH ('connector' = 'filesystem', 'path' = 'file:///etc/passwd', "
     "'format' = 'raw')", "outside the lab's data files"),
    ("CREATE TABLE pw (line STRING) WITH ('connector' = 'filesystem', 'path' = '/etc/passwd', 'format' = 'raw')",
     "outside the lab's data files"),
    ("CREATE TABLE d (line STRING) WITH ('connector' = 'filesystem', 'path' = 'DATA/../../../etc/passwd', "
     "'format' = 'raw')", "outside the lab's data files"),
    ("CREATE TABLE d (line STRING) WITH ('connector' = 'filesystem', 'path' = 'DATA', 'format' = 'raw')",
     "outside the lab's data files"),
    ("CREATE TABLE rel (line STRING) WITH ('connector' = 'filesystem', 'path' = 'ddl.sql', 'format' = 'raw')",
     "the path 'ddl.sql' is relative"),
    ("CREATE TABLE mine (line STRING) WITH ('connector' = 'filesystem', 'path' = 'file://PKG/labs/joins/sql/"
     "ddl.sql', 'format' = 'raw')", "outside the lab's data files"),
    ("SELECT * FROM users /*+ OPTIONS('path' = 'file:///etc/shadow') */", "outside the lab's data files"),
    ("ALTER TABLE users SET ('path' = '/etc/passwd')", "outside the lab's data files"),
    ("CREATE TABLE h (line STRING) WITH ('connector' = 'filesystem', 'path' = 'hdfs://nn/x', 'format' = 'raw')",
     "outside the lab's data files"),
    ("COMPILE PLAN '/tmp/plan.json' FOR INSERT INTO s SELECT 1", "outside the lab's workspace"),
    ("ADD JAR '/tmp/evil.jar'", "ADD JAR"),
    ("add   jar 'WS/evil.jar'", "ADD JAR"),
    ("CREATE TEMPORARY SYSTEM FUNCTION f AS 'com.evil.F'", "user-defined function"),
    ("CREATE FUNCTION f AS 'evil.f' LANGUAGE PYTHON", "user-defined function"),
    ("CREATE CATALOG c WITH ('type' = 'jdbc')", "catalog"),
    ("LOAD MODULE hive", "LOAD MODULE"),
    ("CALL `default_catalog`.`system`.`compact`('t')", "CALL runs a catalog's stored procedure"),
    ("  call sys.p()", "CALL runs"),
    ("ALTER CATALOG default_catalog SET ('k' = 'v')", "catalog"),
    ("SET 'pipeline.jars' = 'file:///tmp/evil.jar'", "not one a lab sets"),
    ("SET 'table.resources.download-dir' = '/tmp'", "not one a lab sets"),
    ("SET 'python.files' = '/tmp/x.py'", "not one a lab sets"),
    ("CREATE TABLE j (a INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:x')", "connector 'jdbc'"),
    # literals Flink's parser decodes: checked by their value
    (r"CREATE TABLE pw (line STRING) WITH ('connector' = 'filesystem', 'path' = U&'\002fetc\002fpasswd', "
     "'format' = 'raw')", "the path '/etc/passwd' is outside"),
    ("CREATE TABLE pw (line STRING) WITH ('connector' = 'filesystem', 'path' = u&'!002fetc!002fpasswd' UESCAPE '!', "
     "'format' = 'raw')", "the path '/etc/passwd' is outside"),
    ("CREATE TABLE pw (line STRING) WITH ('connector' = 'filesystem', 'path' = '/et' -- continued\n 'c/passwd', "
     "'format' = 'raw')", "the path '/etc/passwd' is outside"),
    ("CREATE TABLE pw (line STRING) WITH ('connector' = 'filesystem', 'path' = 'DATA/' /* c */ '../../etc/passwd', "
     "'format' = 'raw')", "is outside the lab's data files"),
    ("CREATE TABLE pw (line STRING) WITH ('connector' = 'filesystem', 'path' = _UTF8'/etc/passwd', "
     "'format' = 'raw')", "the path '/etc/passwd' is outside"),
    ("CREATE TABLE pw (line STRING) WITH ('connector' = 'filesystem', 'path' = N'/etc/passwd', 'format' = 'raw')",
     "the path '/etc/passwd' is outside"),
    ("CREATE TABLE pw (line STRING) WITH ('connector' = 'filesystem', 'pa' 'th' = 'etc/passwd', 'format' = 'raw')",
     "the path 'etc/passwd' is relative"),
    (r"CREATE TABLE j (a INT) WITH (U&'connector' = U&'\006adbc')", "connector 'jdbc'"),
    ("CREATE TABLE j (a INT) WITH ('connector' = 'filesystem', 'path' = 'WS/x', "
     "'sink.partition-commit.policy.class' = 'com.evil.Policy')", "names code to load"),
    (r"CREATE TABLE pw (line STRING) WITH ('connector' = 'filesystem', 'path' = U&'\zzzz', 'format' = 'raw')",
     "Flink cannot read either"),
    ("SELECT X'2f6574632f706173737764'", "'/etc/passwd' names a file outside"),
    (r"CREATE TABLE pw (line STRING) WITH ('connector' = 'filesystem', 'path' = E'\x2fetc\x2fpasswd', "
     "'format' = 'raw')", "a C-style E'...' literal"),
    ("SELECT * FROM users /*+ OPTIONS(path = 'etc/passwd') */", "is relative"),
    (r"SELECT * FROM users /*+ OPTIONS(`path` = U&'\002fetc\002fshadow') */", "'/etc/shadow' is outside"),
    (r"ALTER TABLE users SET ('path' = U&'\002fetc\002fpasswd')", "'/etc/passwd' is outside"),
    ("CREATE TABLE c (line STRING) WITH ('connector' = 'filesystem', 'format' = 'csv', "
     "'csv.null-literal' = '/proc/self/environ')", "outside the lab's data files"),
    # plan files: the private workspace's only, relative ones included
    ("COMPILE AND EXECUTE PLAN 'rv/victim.txt' FOR INSERT INTO bh SELECT order_id FROM orders",
     "the plan file 'rv/victim.txt' is a relative path"),
    ("COMPILE PLAN 'pwned.json' FOR INSERT INTO bh SELECT 1", "is a relative path"),
    ("EXECUTE PLAN 'regular-plan.json'", "is a relative path"),
    (r"compile and execute plan U&'\002ftmp\002fp.json' FOR INSERT INTO bh SELECT 1",
     "the plan file '/tmp/p.json' is outside the lab's workspace"),
    ("COMPILE PLAN 'DATA/joins_users.csv' FOR INSERT INTO bh SELECT 1", "outside the lab's workspace"),
    # SET: key and value as decoded
    (r"SET U&'pipeline\002ejars' = 'x'", "'pipeline.jars' is not one a lab sets"),
    ("SET 'table.' 'resources.download-dir' = 'x'", "not one a lab sets"),
    ("SET pipeline.jars = file:///tmp/evil.jar", "not one a lab sets"),
    ("SET 'table.exec.sink.x' = '/etc/passwd'", "names a file outside"),
    ("CREATE MODEL m INPUT (a STRING) OUTPUT (b STRING) WITH ('provider' = 'openai')", "model"),
])
def test_refused(tmp_path, statement, why):
    sandbox = sandbox_for("joins", tmp_path)
    statement = (statement.replace("DATA", str(tmp_path / "data")).replace("WS", str(tmp_path / "ws" / "joins"))
                 .replace("PKG", str(Path(flinklab.__file__).parent)))
    refusals = sandbox.refusals(sandbox.retarget(statement + ";"))
    assert len(refusals) == 1 and why in refusals[0][1]


@pytest.mark.parametrize("statement", [
    "SET 'execution.runtime-mode' = 'batch'",
    "SET 'sql-client.execution.result-mode' = 'tableau'",
    "SET 'table.exec.state.ttl' = '1 h'",
    "RESET 'execution.runtime-mode'",
    "SELECT CONCAT(user_id, '/', tier), DATE_FORMAT(signup_time, 'yyyy/MM/dd') FROM users",
    "SELECT * FROM orders WHERE currency = 'USD' -- a comment about /etc/passwd",
    "CREATE TEMPORARY VIEW v AS SELECT * FROM orders",
    "SET table.exec.state.ttl = 1h",
    r"SELECT U&'caf\00e9', _UTF8'x' 'y', X'00ff' FROM orders",
    r"CREATE TABLE s (a INT) WITH ('connector' = 'filesystem', 'path' = U&'WS\002fout', 'format' = 'csv')",
    "COMPILE PLAN 'WS/regular-plan.json' FOR INSERT INTO s SELECT * FROM users",
    "SELECT plan FROM t WHERE plan = 'a'",
])
def test_allowed(tmp_path, statement):
    sandbox = sandbox_for("joins", tmp_path)
    statement = statement.replace("WS", str(tmp_path / "ws" / "joins"))
    assert sandbox.refusals(statement + ";") == []


def test_retarget_writes_every_literal_plain_so_what_runs_is_what_was_checked(tmp_path):
    sandbox = sandbox_for("windows", tmp_path)
    sql = ("CREATE TABLE o (a INT) WITH ('connector' = 'filesystem', -- a comment with it's apostrophe\n"
           r"  'path' = U&'\002fopt\002flab/fixtures/data/windows_orders.csv', 'format' = 'csv');" "\n"
           r"SELECT U&'!0027!00e9' UESCAPE '!', 'a' /* between */ 'b', N'c', 'd''e', X'2f' FROM o;")
    out = sandbox.retarget(sql)
    assert f"'path' = '{tmp_path / 'data' / 'windows_orders.csv'}'" in out
    assert "SELECT '''\u00e9', 'ab', 'c', 'd''e', X'2f' FROM o;" in out
    assert "U&" not in out and "UESCAPE" not in out
    assert "-- a comment with it's apostrophe" in out  # comments are not literals
    assert sandbox.refusals(out) == []


def test_each_refused_statement_is_named(tmp_path):
    sandbox = sandbox_for("joins", tmp_path)
    sql = "SELECT 1;\nADD JAR '/x.jar';\nSELECT 2;\nCREATE FUNCTION f AS 'x.F';"
    found = sandbox.refusals(sql)
    assert [s for s, _ in found] == [split_statements(sql)[1], split_statements(sql)[3]]
