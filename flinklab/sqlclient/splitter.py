"""Split a SQL script into statements the way a person reads it.

The real 2.x client ends a statement at any line whose trimmed text ends with `;`, even inside a string or a
comment. This splitter is stricter about what a `;` means: it ignores `;` inside '...' strings (with '' escapes),
"..." and `...` identifiers, `--` line comments and `/* */` block comments (hints `/*+ ... */` included), and keeps
`EXECUTE STATEMENT SET BEGIN ...; ...; END;` together as one statement.
"""

from __future__ import annotations

import re

_STATEMENT_SET_HEAD = re.compile(r"EXECUTE\s+STATEMENT\s+SET\s+BEGIN\b", re.IGNORECASE)
_LAST_WORD = re.compile(r"([A-Za-z_]+)\s*$")


def split_statements(text: str) -> list[str]:
    """The statements of `text`, stripped, without their terminating `;`.

    Comments stay in the statement text (Flink parses them, and hints must survive); a piece that holds only
    comments and whitespace is not a statement. A last statement without `;` is kept.
    """
    statements: list[str] = []
    current: list[str] = []  # the raw text of the statement being read
    # the same text with comments and quoted parts blanked: what decides where a `;` counts
    code: list[str] = []
    i, n = 0, len(text)

    def flush() -> None:
        raw = "".join(current).strip()
        if "".join(code).strip():
            statements.append(raw)
        current.clear()
        code.clear()

    while i < n:
        ch = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if ch == "-" and nxt == "-":
            end = text.find("\n", i)
            end = n if end < 0 else end
            current.append(text[i:end])
            i = end
        elif ch == "/" and nxt == "*":
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            chunk = text[i:end]
            current.append(chunk)
            # a hint is part of the statement; a plain comment only separates tokens
            code.append(" HINT " if chunk.startswith("/*+") else " ")
            i = end
        elif ch in ("'", '"', "`"):
            end = _closing_quote(text, i, ch)
            current.append(text[i:end])
            code.append(" Q ")
            i = end
        elif ch == ";":
            if _inside_statement_set(code):
                current.append(ch)
                code.append(ch)
                i += 1
            else:
                flush()
                i += 1
        else:
            current.append(ch)
            code.append(ch)
            i += 1
    flush()
    return statements


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


def _inside_statement_set(code: list[str]) -> bool:
    """True while a `EXECUTE STATEMENT SET BEGIN ...` block has not reached its `END`."""
    so_far = "".join(code).lstrip()
    if not _STATEMENT_SET_HEAD.match(so_far):
        return False
    last = _LAST_WORD.search(so_far)
    return not (last and last.group(1).upper() == "END")


def strip_comments(statement: str) -> str:
    """`statement` without its `--` and `/* */` comments (hints are kept), quoted parts untouched."""
    out: list[str] = []
    i, n = 0, len(statement)
    while i < n:
        ch = statement[i]
        nxt = statement[i + 1] if i + 1 < n else ""
        if ch == "-" and nxt == "-":
            end = statement.find("\n", i)
            i = n if end < 0 else end
        elif ch == "/" and nxt == "*" and not statement.startswith("/*+", i):
            end = statement.find("*/", i + 2)
            out.append(" ")
            i = n if end < 0 else end + 2
        elif ch in ("'", '"', "`"):
            end = _closing_quote(statement, i, ch)
            out.append(statement[i:end])
            i = end
        else:
            out.append(ch)
            i += 1
    return "".join(out).strip()
