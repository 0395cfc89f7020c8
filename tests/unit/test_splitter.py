"""The statement splitter: `;` only ends a statement where Flink would read it as the end."""

from __future__ import annotations

from flinklab.flink.sql_split import code_only, split_statements, strip_comments


def test_plain_statements_and_trailing_statement_without_semicolon() -> None:
    assert split_statements("SELECT 1;\nSELECT 2;\nSELECT 3") == ["SELECT 1", "SELECT 2", "SELECT 3"]


def test_semicolon_inside_single_quoted_string_with_doubled_quote_escape() -> None:
    sql = "SELECT 'a;b', 'it''s; fine' FROM t;SELECT 2;"
    assert split_statements(sql) == ["SELECT 'a;b', 'it''s; fine' FROM t", "SELECT 2"]


def test_escaped_quote_right_before_the_end_of_a_string() -> None:
    assert split_statements("SELECT '';'' FROM t; SELECT ''''; SELECT 3") == [
        "SELECT ''",
        "'' FROM t",
        "SELECT ''''",
        "SELECT 3",
    ]


def test_semicolon_inside_double_quoted_and_backquoted_identifiers() -> None:
    sql = 'SELECT "x;y" AS "a""b;", `c;d` AS `e``;` FROM t; SELECT 2'
    assert split_statements(sql) == ['SELECT "x;y" AS "a""b;", `c;d` AS `e``;` FROM t', "SELECT 2"]


def test_semicolons_inside_line_and_block_comments_are_ignored() -> None:
    sql = "-- setup; not a statement end\nSELECT 1 /* one; two */ FROM t; -- trailing; comment\nSELECT 2;"
    assert split_statements(sql) == [
        "-- setup; not a statement end\nSELECT 1 /* one; two */ FROM t",
        "-- trailing; comment\nSELECT 2",
    ]


def test_hints_are_kept_in_the_statement_and_their_semicolons_ignored() -> None:
    sql = "SELECT /*+ OPTIONS('csv.field-delimiter'=';') */ * FROM t;SELECT /*+ STATE_TTL('o'='1h') */ 1"
    assert split_statements(sql) == [
        "SELECT /*+ OPTIONS('csv.field-delimiter'=';') */ * FROM t",
        "SELECT /*+ STATE_TTL('o'='1h') */ 1",
    ]


def test_multi_line_statement_keeps_its_lines() -> None:
    sql = "CREATE TABLE t (\n  a INT,\n  b STRING\n) WITH (\n  'connector' = 'datagen'\n);\n"
    assert split_statements(sql) == [
        "CREATE TABLE t (\n  a INT,\n  b STRING\n) WITH (\n  'connector' = 'datagen'\n)"
    ]


def test_empty_and_comment_only_pieces_are_not_statements() -> None:
    sql = ";;\n  ;\nSELECT 1;;\n-- only a comment\n/* and a block */\n"
    assert split_statements(sql) == ["SELECT 1"]
    assert split_statements("") == []
    assert split_statements("   \n-- nothing\n") == []


def test_execute_statement_set_is_one_statement() -> None:
    sql = (
        "EXECUTE STATEMENT SET\nBEGIN\n"
        "  INSERT INTO a SELECT * FROM s; -- first; sink\n"
        "  INSERT INTO b SELECT 'end;' FROM s;\n"
        "END;\n"
        "SELECT 1;"
    )
    assert split_statements(sql) == [sql[: sql.index("END;") + 3], "SELECT 1"]


def test_execute_statement_set_is_case_insensitive_and_may_end_the_file_without_semicolon() -> None:
    sql = "execute statement set begin insert into a select 1; insert into b select 2; end"
    assert split_statements(sql) == [sql]


def test_interactive_statement_set_form_is_separate_statements() -> None:
    sql = "BEGIN STATEMENT SET;\nINSERT INTO a SELECT 1;\nEND;"
    assert split_statements(sql) == ["BEGIN STATEMENT SET", "INSERT INTO a SELECT 1", "END"]


def test_unterminated_string_keeps_the_rest_for_flink_to_reject() -> None:
    assert split_statements("SELECT 1; SELECT 'oops; SELECT 2;") == ["SELECT 1", "SELECT 'oops; SELECT 2;"]


def test_crlf_line_endings() -> None:
    assert split_statements("SELECT 1;\r\n-- c;\r\nSELECT 2;\r\n") == ["SELECT 1", "-- c;\r\nSELECT 2"]


def test_strip_comments_keeps_hints_and_quoted_text() -> None:
    statement = "-- lead\nSET 'a' = '--not a comment' /* tail */"
    assert strip_comments(statement) == "SET 'a' = '--not a comment'"
    assert strip_comments("SELECT /*+ HINT */ 1 -- x") == "SELECT /*+ HINT */ 1"


def test_statement_set_ends_only_at_the_word_end() -> None:
    # XEND, a quoted 'END' and a comment's END do not close the block; only the word END before a `;` does
    sql = "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT XEND; INSERT INTO b SELECT 'END'; -- END\nEND;SELECT 1"
    assert split_statements(sql) == [sql[: sql.index("END;SELECT") + 3], "SELECT 1"]


def test_a_long_statement_set_is_one_statement() -> None:
    # each `;` inside the block looks only at the code since the previous one (re-reading the whole block at
    # every `;` took ~45 s for 4000 inserts)
    body = "INSERT INTO a SELECT 'x;y' FROM s; -- c;\n" * 5000
    sql = f"EXECUTE STATEMENT SET BEGIN\n{body}END;\nSELECT 2;"
    assert split_statements(sql) == [sql[: sql.index("END;") + 3], "SELECT 2"]


def test_strip_comments_reads_a_hint_body_as_sql() -> None:
    assert strip_comments("SELECT /*+ A -- note\n */ 1") == "SELECT /*+ A \n */ 1"


def test_code_only_hides_comments_hints_and_quoted_parts():
    text = "SELECT 'TUMBLE(x)', `hop(y)` -- GROUP BY TUMBLE(a)\n/* HOP(b) */ FROM t /*+ OPTIONS('a'='b') */;"
    assert code_only(text) == "SELECT  Q ,  Q  \n  FROM t  HINT ;"
