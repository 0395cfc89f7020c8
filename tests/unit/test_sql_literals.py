"""Flink SQL's string literals read as its parser (Calcite's) reads them: prefixes, U&'...' with UESCAPE, binary,
continued literals, comments between fragments."""

from __future__ import annotations

import pytest

from flinklab.flink.sql_literals import BINARY, IDENT, QUOTED_IDENT, STRING, SYMBOL, quote, rewrite, tokens


def strings(text: str) -> list[str]:
    return [t.value for t in tokens(text) if t.kind in (STRING, BINARY)]


@pytest.mark.parametrize("text, value", [
    ("'/etc/passwd'", "/etc/passwd"),
    ("'it''s'", "it's"),
    (r"U&'\002fetc\002fpasswd'", "/etc/passwd"),
    (r"u&'\002Fetc'", "/etc"),
    (r"U&'a\\b'", "a\\b"),
    ("U&'!002fetc!!' UESCAPE '!'", "/etc!"),
    ("U&'!002fetc' -- a comment\n UESCAPE /* another */ '!'", "/etc"),
    (r"U&'\+02f'", "/"),  # Java's Integer.parseInt takes a sign, so Calcite does
    (r"U&'\d83d\de00'", "\U0001F600"),  # a surrogate pair is one character
    ("_UTF8'/etc'", "/etc"),
    ("_ISO-8859-1'/etc'", "/etc"),
    ("N'/etc'", "/etc"),
    ("n'/etc'", "/etc"),
    ("'/et' 'c'", "/etc"),
    ("'/et'\n-- a comment\n'c' /* x */ '/passwd'", "/etc/passwd"),
    (r"U&'\002f' 'etc\002f'", "/etc/"),  # the escape applies to every fragment
    ("X'2f657463'", "/etc"),
    ("X'2f65' '7463'", "/etc"),
])
def test_a_literal_is_read_as_flink_reads_it(text, value):
    found = list(tokens(f"SELECT {text} FROM t"))
    literals = [t for t in found if t.kind in (STRING, BINARY)]
    assert [t.value for t in literals] == [value] and not literals[0].error
    assert found[-2:] == [t for t in found if t.kind == IDENT][-2:]  # FROM t follow, nothing swallowed


@pytest.mark.parametrize("text, error", [
    (r"U&'\zzzz'", "is not \\XXXX"),
    (r"U&'\00'", "is not \\XXXX"),
    (r"U&'\d83d'", "half a surrogate pair"),
    ("'x' UESCAPE '!'", "UESCAPE follows a literal that is not U&"),
    ("U&'x' UESCAPE 'a'", "not one character that can escape"),
    ("X'zz'", "not hex digits"),
    ("'never closed", "not closed"),
    (r"E'\x2fetc'", "C-style E'...'"),  # Flink reads '/etc'
    (r"e'it\'s'", "C-style E'...'"),
])
def test_a_literal_flink_cannot_read_says_why(text, error):
    literal = next(t for t in tokens(text) if t.kind in (STRING, BINARY))
    assert error in literal.error


def test_a_c_style_literal_ends_where_flink_ends_it():
    found = list(tokens(r"SELECT E'a\';' AS x, '/etc' AS y"))
    assert found[1].text == r"E'a\';'" and found[1].error
    assert [t.value for t in found if t.kind == STRING][1:] == ["/etc"]


def test_words_that_only_look_like_prefixes_are_not_literals():
    assert strings("SELECT colN'x', max'y'") == ["x", "y"]  # an identifier, then a plain literal
    kinds = [(t.kind, t.value) for t in tokens("SELECT `a'b`, \"c'd\" FROM x")]
    assert (QUOTED_IDENT, "a'b") in kinds and (QUOTED_IDENT, "c'd") in kinds and strings("`a'b`") == []


def test_comments_are_skipped_and_hints_are_read():
    assert strings("SELECT 1 -- '/etc/passwd'\n/* '/etc/shadow' */") == []
    found = [t.text for t in tokens("SELECT * FROM t /*+ OPTIONS('path' = '/x') */")]
    assert found == ["SELECT", "*", "FROM", "t", "/*+", "OPTIONS", "(", "'path'", "=", "'/x'", ")", "*/"]
    assert [t.kind for t in tokens("/*+ */")] == [SYMBOL, SYMBOL]


def test_rewrite_replaces_only_what_it_is_given():
    sql = "SELECT U&'\\0041' AS a, 'b' AS b -- 'c'\n"
    out = rewrite(sql, lambda t: None if t.plain else quote(t.value))
    assert out == "SELECT 'A' AS a, 'b' AS b -- 'c'\n"
    assert quote("it's") == "'it''s'"
