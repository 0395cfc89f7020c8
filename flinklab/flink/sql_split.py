"""Split a SQL script into statements the way a person reads it.

As the real 2.x client (SqlMultiLineParser, which asks SqlClientParserState whether a line ending with `;` ends
inside a string, a comment or a hint), it ignores `;` inside '...' strings (with '' escapes), `...` identifiers,
`--` line comments and `/* */` block comments (hints `/*+ ... */` included); it also ignores one inside "..."
(an identifier in the Hive dialect only, for Flink's), and keeps `EXECUTE STATEMENT SET BEGIN ...; ...; END;`
together as one statement.

One scanner (:func:`_pieces`) cuts the text into comments, hints, quoted parts, `;` and plain code; the splitter and
:func:`strip_comments` both read its pieces.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_STATEMENT_SET_HEAD = re.compile(r"EXECUTE\s+STATEMENT\s+SET\s+BEGIN\b", re.IGNORECASE)
_LAST_WORD = re.compile(r"[A-Za-z_]+$")
_SPECIAL = re.compile(r"--|/\*|['\"`;]")

# the kinds of piece _pieces yields
_CODE, _SEMICOLON, _QUOTED, _LINE_COMMENT, _BLOCK_COMMENT, _HINT = "code", ";", "quoted", "--", "/*", "/*+"


def _pieces(text: str, *, whole_hints: bool = True) -> Iterator[tuple[str, str]]:
    """(kind, text) pieces that put `text` back together: plain code, `;`, a quoted part (to its closing quote),
    a `--` comment (to the end of its line, newline excluded), a `/* */` comment or a `/*+ */` hint (unterminated
    ones run to the end of the text). Without `whole_hints` a hint's `/*+` is code and its body is scanned like
    any other text (its `*/` then comes out as code too)."""
    i, n = 0, len(text)
    while i < n:
        special = _SPECIAL.search(text, i)
        if special is None:
            yield _CODE, text[i:]
            return
        start = special.start()
        if start > i:
            yield _CODE, text[i:start]
        token = special.group()
        if token == "--":
            end = text.find("\n", start)
            end = n if end < 0 else end
            yield _LINE_COMMENT, text[start:end]
        elif token == "/*" and not whole_hints and text.startswith("/*+", start):
            end = start + 3
            yield _CODE, text[start:end]
        elif token == "/*":
            end = text.find("*/", start + 2)
            end = n if end < 0 else end + 2
            yield (_HINT if text.startswith("/*+", start) else _BLOCK_COMMENT), text[start:end]
        elif token == ";":
            end = start + 1
            yield _SEMICOLON, token
        else:
            end = _closing_quote(text, start, token)
            yield _QUOTED, text[start:end]
        i = end


def _closing_quote(text: str, start: int, quote: str) -> int:
    """Index just past the quoted part opened at `start`; a doubled quote is an escaped one."""
    i = start + 1
    n = len(text)
    while i < n:
        if text[i] == quote:
            if i + 1 < n and text[i + 1] == quote:
                i += 2
                continue
            return i + 1
        i += 1
    return n  # unterminated: the rest belongs to it (Flink will report the error)


def _code_of(kind: str, chunk: str) -> str:
    """What a piece counts as when deciding where a `;` ends a statement: comments only separate tokens, a hint
    and a quoted part are one token each (never a keyword)."""
    if kind == _CODE:
        return chunk
    return {_QUOTED: " Q ", _HINT: " HINT ", _BLOCK_COMMENT: " "}.get(kind, "")


def _ends_with_end(code: str) -> bool:
    """True when the last word of `code` is END (the end of an `EXECUTE STATEMENT SET BEGIN ...` block)."""
    last = _LAST_WORD.search(code.rstrip()[-4:])  # a word longer than END (e.g. XEND) shows in 4 chars
    return last is not None and last.group().upper() == "END"


def split_statements(text: str) -> list[str]:
    """The statements of `text`, stripped, without their terminating `;`.

    Comments stay in the statement text (Flink parses them, and hints must survive); a piece that holds only
    comments and whitespace is not a statement. A last statement without `;` is kept.
    """
    statements: list[str] = []
    raw: list[str] = []  # the text of the statement being read
    code: list[str] = []  # the same, as _code_of sees it: what decides where a `;` counts
    since_semicolon: list[str] = []  # the code after the statement's last `;` (inside a statement set)
    statement_set: bool | None = None  # decided at the statement's first `;`; None before it

    def flush() -> None:
        if "".join(code).strip():
            statements.append("".join(raw).strip())
        raw.clear()
        code.clear()
        since_semicolon.clear()

    for kind, chunk in _pieces(text):
        if kind == _SEMICOLON:
            if statement_set is None:
                statement_set = bool(_STATEMENT_SET_HEAD.match("".join(code).lstrip()))
            if statement_set and not _ends_with_end("".join(since_semicolon)):
                raw.append(chunk)  # a `;` inside the block: the block goes on
                code.append(chunk)
                since_semicolon.clear()
                continue
            flush()
            statement_set = None
            continue
        raw.append(chunk)
        counted = _code_of(kind, chunk)
        if counted:
            code.append(counted)
            since_semicolon.append(counted)
    flush()
    return statements


def code_only(text: str) -> str:
    """`text` as a reader of keywords sees it: comments and hints removed, every quoted part (a string or a quoted
    identifier) replaced by ` Q `, so a word inside either can never be mistaken for SQL."""
    return "".join(_code_of(kind, chunk) if kind != _SEMICOLON else chunk for kind, chunk in _pieces(text))


def strip_comments(statement: str) -> str:
    """`statement` without its `--` and `/* */` comments (hints are kept), quoted parts untouched.

    A hint's body is read as SQL here, so a comment inside it is removed too (Flink's lexer reads a hint's body as
    ordinary tokens); the splitter, which only needs to know where a `;` counts, takes a hint whole.
    """
    kept = []
    for kind, chunk in _pieces(statement, whole_hints=False):
        if kind == _BLOCK_COMMENT:
            kept.append(" ")
        elif kind != _LINE_COMMENT:
            kept.append(chunk)
    return "".join(kept).strip()
