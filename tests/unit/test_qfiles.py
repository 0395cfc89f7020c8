"""The `.q` reader, the skip list and the output splitter (tests/qfiles.py), against the real files.

The `.q` files are Flink's own (tests/data/q/, SOURCES.md); the outputs split here are real captures of our client
(tests/data/runner/, see its README).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from helpers.qfiles import (
    HARNESS_DEFINES,
    NORMALIZATIONS,
    Q_DIR,
    FileRules,
    QFormatError,
    Replay,
    check_rules,
    compare,
    echo,
    expected_block,
    is_error_block,
    load_intermittent,
    load_q,
    load_rules,
    normalize_actual,
    parse_q,
    q_files,
    script_text,
    split_output,
    substitute,
)

RUNNER_OUT = Path(__file__).parent.parent / "data" / "runner"

# statements per file and their markers, counted with `grep -c '^!ok'` etc. (one `!marker` line closes each)
EXPECTED_COUNTS = {
    "catalog_database.q": (104, {"!info": 56, "!ok": 39, "!error": 9}),
    "insert.q": (10, {"!info": 8, "!ok": 2}),
    "misc.q": (1, {"!ok": 1}),
    "select.q": (36, {"!info": 18, "!ok": 17, "!error": 1}),
    "select_batch.q": (14, {"!info": 8, "!ok": 6}),
    "set.q": (30, {"!info": 17, "!ok": 12, "!error": 1}),
    "statement_set.q": (22, {"!info": 15, "!ok": 2, "!error": 5}),
    "view.q": (45, {"!info": 11, "!ok": 28, "!error": 6}),
}


def test_the_files_kept_are_the_ones_counted_and_listed_in_sources() -> None:
    assert q_files() == sorted(EXPECTED_COUNTS)
    sources = (Q_DIR / "SOURCES.md").read_text()
    for name in q_files():
        assert f"`{name}`" in sources, name
        assert "Licensed to the Apache Software Foundation" in (Q_DIR / name).read_text()[:400], name


@pytest.mark.parametrize("name", sorted(EXPECTED_COUNTS))
def test_statement_counts_and_markers(name: str) -> None:
    cases = load_q(name)
    count, markers = EXPECTED_COUNTS[name]
    assert len(cases) == count
    assert Counter(c.marker for c in cases) == markers
    assert [c.index for c in cases] == list(range(count))
    assert all(c.sql.rstrip().endswith(";") and not c.statement.endswith(";") for c in cases)
    # what the file says is put back together from the parts (as CliClientITCase.transformOutput does)
    text = (Q_DIR / name).read_text()
    rebuilt = "".join(c.comment + c.sql + (c.expected + "\n" if c.expected else "") + c.marker + "\n" for c in cases)
    assert text.startswith(rebuilt) and not text[len(rebuilt):].strip("\n")


def test_a_case_keeps_comment_multiline_sql_and_error_block() -> None:
    cases = {c.index: c for c in load_q("set.q")}
    ctas = cases[2]
    assert ctas.comment.endswith('# test "ctas"\n') and ctas.line == 28
    assert ctas.statement.startswith("CREATE TABLE foo with(\n") and ctas.statement.endswith("T(id)")
    hive = cases[13]
    assert hive.marker == "!error"
    assert hive.expected.split("\n") == [
        "[ERROR] Could not execute SQL statement. Reason:",
        'org.apache.flink.sql.parser.impl.ParseException: Encountered "STRING" at line 10, column 27.',
        "Was expecting one of:",
        '    ")" ...',
        '    "," ...',
    ]
    # `--` lines belong to the statement (only `#` lines are comments)
    drop = load_q("select_batch.q")[11]
    assert drop.statement.split("\n") == [
        "-- post-test cleanup + setting back default max width value", "DROP TEMPORARY VIEW testUserData"
    ]


def test_a_semicolon_ending_a_line_inside_a_string_or_comment_does_not_end_the_statement() -> None:
    # as SqlScriptReader reads a .q file (SqlClientParserState at the end of the line, default dialect)
    literal, block, line = load_q("select.q")[33:36]
    assert literal.statement == "SELECT ';\n'" and literal.expected.split("\n")[3:5] == ["|     ;", " |"]
    assert block.statement == "SELECT /*;\n'*/ 1"
    assert line.statement == "SELECT --;\n1"
    assert [c.statement for c in parse_q("SELECT 'it''s;';\n!ok\nSELECT `a;\n`;\n!ok\nSELECT /*+ x; */ 1;\n!ok\n")] \
        == ["SELECT 'it''s;'", "SELECT `a;\n`", "SELECT /*+ x; */ 1"]
    assert [c.statement for c in parse_q('SELECT "a;\n!ok\n')] == ['SELECT "a']  # no state for "..." in it


def test_placeholders_are_replaced_longest_key_first() -> None:
    variables = {"$VAR_UDF_JAR_PATH": "/j/x.jar", "$VAR_UDF_JAR_PATH_DASH": "----", "$VAR_UDF_JAR_PATH_SPACE": "    "}
    show_jars = load_q("set.q", variables)[6]
    assert show_jars.expected.split("\n") == [
        "+----------+", "|     jars |", "+----------+", "| /j/x.jar |", "+----------+", "1 row in set"
    ]
    assert substitute("$VAR_REST_PORT:$VAR_REST_PORT", {"$VAR_REST_PORT": "1"}) == "1:1"
    ctas = load_q("set.q", {"$VAR_STREAMING_PATH": "/tmp/s"})[2]
    assert "'path' = '/tmp/s'" in ctas.statement


def test_truncated_files_are_errors_not_fewer_cases() -> None:
    with pytest.raises(QFormatError, match="closing '!' marker"):
        parse_q("SELECT 1;\n+---+\n", "t.q")
    with pytest.raises(QFormatError, match="without a closing ';'"):
        parse_q("# c\nSELECT 1\n", "t.q")
    assert parse_q("# only a comment\n\n") == []


def test_every_skip_and_xfail_entry_names_its_case_and_says_why() -> None:
    rules = load_rules()
    assert set(rules) <= set(q_files())
    for name, file_rules in rules.items():
        assert check_rules(load_q(name), file_rules) == [], name
        assert all(mark.reason and mark.kind in ("skip", "xfail") for mark in file_rules.marks.values())
    assert load_intermittent() == []  # the metadataHandlerProvider NPE is fixed; a recurrence must fail a case


def test_a_rule_pointing_at_the_wrong_case_is_reported(tmp_path: Path) -> None:
    bad = tmp_path / "skips.yaml"
    bad.write_text("files:\n  set.q:\n    skip:\n      - {case: 4, sql: 'ADD JAR', reason: 'moved'}\n")
    assert check_rules(load_q("set.q"), load_rules(bad)["set.q"]) == [
        "case 4 does not contain 'ADD JAR': 'SELECT * from foo'"
    ]
    bad.write_text("files:\n  set.q:\n    xfail:\n      - {case: 4, sql: 'foo'}\n")
    with pytest.raises(QFormatError, match="without a reason"):
        load_rules(bad)
    bad.write_text("intermittent:\n  - {error: 'java.lang.NullPointerException'}\n")
    with pytest.raises(QFormatError, match="needs an error text and a reason"):
        load_intermittent(bad)


def test_version_skew_rewrites_only_the_expected_text_of_old_files() -> None:
    rules = load_rules()
    old = load_q("statement_set.q")[0]
    assert old.expected == "[INFO] Execute statement succeed."
    assert expected_block(old, rules["statement_set.q"]) == "[INFO] Execute statement succeeded."
    assert expected_block(old, FileRules()) == old.expected


def test_split_output_of_a_real_run_gives_one_block_per_statement() -> None:
    stdout = (RUNNER_OUT / "batch.out").read_text()
    statements = [
        "SET 'sql-client.execution.result-mode' = 'tableau'",
        "SET 'execution.runtime-mode' = 'batch'",
        "SELECT shop, COUNT(*) AS n, SUM(amount) AS revenue, MAX(ts) AS last_ts FROM orders GROUP BY shop "
        "ORDER BY shop",
        "SELECT COUNT(*) AS cnt FROM orders",
    ]
    blocks = split_output(stdout, statements)
    assert blocks[0] == blocks[1] == "[INFO] Execute statement succeeded.\n"
    assert blocks[2].startswith("+------+---+") and blocks[2].endswith("3 rows in set (49.98 seconds)\n")
    assert normalize_actual(blocks[3]).split("\n") == ["+-----+", "| cnt |", "+-----+", "|   7 |", "+-----+",
                                                       "1 row in set (1.90 seconds)"]
    assert "Shutting down" not in blocks[3] and "Flink SQL>" not in blocks[3]


def test_split_output_stops_at_the_statement_that_failed() -> None:
    stdout = (RUNNER_OUT / "error.out").read_text()
    statements = ["SET 'sql-client.execution.result-mode' = 'tableau'", "SELECT COUNT(*) FROM order_typo", "SELECT 1"]
    blocks = split_output(stdout, statements)
    assert len(blocks) == 2 and not is_error_block(blocks[0]) and is_error_block(blocks[1])
    expected = (
        "[ERROR] Could not execute SQL statement. Reason:\n"
        "org.apache.calcite.sql.validate.SqlValidatorException: Object 'order_typo' not found"
    )
    assert compare(expected, blocks[1]) is None
    diff = compare(expected.replace("order_typo", "orders"), blocks[1])
    assert diff is not None and "-org.apache.calcite" in diff and "+org.apache.calcite" in diff


def test_echo_and_script_round_trip_a_multiline_statement() -> None:
    statement = load_q("view.q")[0].statement
    assert echo(statement).startswith("Flink SQL> CREATE TABLE orders (\n>  `user` BIGINT NOT NULl,\n")
    assert echo(statement).endswith("\n> );")
    assert script_text(["SET 'a' = 'b'", statement]).count(";\n") == 2


def test_normalizations_are_only_the_documented_ones() -> None:
    block = 'Job ID: 0123abcd\n\x1b[34;1m[INFO] ok\x1b[0m   \n"id" : 17,\nReceived a total of 3 rows\n\n'
    assert normalize_actual(block) == 'Job ID:\n[INFO] ok\n"id" : ,\nReceived a total of 3 rows'
    # the harness turns time costs off (as the real runner); a printed time is a difference, not noise
    assert compare("1 row in set", "1 row in set (0.10 seconds)") is not None
    assert compare("  x\n1 row in set", "  x   \n1 row in set\n\n") is None
    assert set(NORMALIZATIONS) == {"ansi", "trailing-spaces", "job-id", "plan-node-id", "trailing-blank-lines"}
    assert HARNESS_DEFINES["sql-client.display.print-time-cost"] == "false"


def test_replay_keeps_session_setup_but_not_jobs_or_submitted_statement_sets() -> None:
    replay = Replay()
    for statement, ok in [
        ("SET 'table.dml-sync' = 'true'", True),
        ("CREATE TABLE foo with('connector' = 'filesystem') as select id FROM (VALUES (1)) T(id)", True),
        ("create table t (id int) with ('connector' = 'blackhole')", True),
        ("INSERT INTO t VALUES (1)", True),
        ("SELECT * FROM t", True),
        ("use catalog nope", False),
        ("BEGIN STATEMENT SET", True),
        ("INSERT INTO t VALUES (2)", True),
        ("END", True),
        ("BEGIN STATEMENT SET", True),
        ("INSERT INTO t VALUES (3)", True),
        ("-- cleanup\nDROP TEMPORARY VIEW v", True),
    ]:
        replay.record(statement, ok)
    assert replay.statements == [
        "SET 'table.dml-sync' = 'true'",
        "create table t (id int) with ('connector' = 'blackhole')",
        "BEGIN STATEMENT SET",
        "INSERT INTO t VALUES (3)",
        "-- cleanup\nDROP TEMPORARY VIEW v",
    ]
