"""Flink SQL's tokens as its parser (Calcite's) reads them, string literals decoded.

A string literal is more than '...' (with '' for a quote):

- a charset prefix: `N'...'`, `_UTF8'...'`, `_ISO-8859-1'...'` (the value is the text between the quotes);
- a Unicode literal `U&'...'`: `\\XXXX` (four hex digits) is a character, `\\\\` a backslash, and a trailing
  `UESCAPE 'c'` makes `c` the escape character;
- a binary literal `X'...'` (hex digits);
- a literal continued by more '...' fragments after whitespace or comments: `'/et' 'c'` is '/etc' (Flink takes
  that in a WITH clause even on one line);
- a C-style `E'...'` (`E'\\x2fetc'` is '/etc'): read to its end (a backslash escapes a quote) but not decoded, and
  marked as an error so that a checker refuses it.

Whoever checks a literal's value reads :attr:`Token.value`, never the text; :func:`rewrite` writes literals back as
plain '...' so that what runs is what was checked. Comments are skipped; a hint's `/*+` and `*/` are symbols and
its body is read as SQL.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

STRING, BINARY, IDENT, QUOTED_IDENT, SYMBOL = "string", "binary", "ident", "quoted ident", "symbol"

_HEAD = re.compile(r"(X|U&|N|E|_[A-Za-z0-9][A-Za-z0-9:._-]*)'", re.IGNORECASE)
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_NUMBER = re.compile(r"\d[\w.]*")
_UESCAPE = re.compile(r"UESCAPE\b", re.IGNORECASE)
_HEX4 = re.compile(r"[+-]?[0-9A-Fa-f]+")  # what Java's Integer.parseInt(u, 16) takes
_WHITESPACE = " \t\r\n\f"
C_STYLE = "a C-style E'...' literal, whose backslash escapes the grader does not read: write it as '...'"


@dataclass(frozen=True)
class Token:
    kind: str  # STRING, BINARY, IDENT, QUOTED_IDENT or SYMBOL
    text: str  # as written (a literal: from its prefix to its last fragment or its UESCAPE clause)
    start: int
    value: str = ""  # a literal's decoded value (a binary one's bytes as Latin-1); an identifier's name
    plain: bool = False  # one '...' fragment without prefix: the text is what Flink reads
    error: str = ""  # why the literal cannot be read (Flink rejects it too)

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def quote(value: str) -> str:
    """`value` as a plain SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def tokens(text: str) -> Iterator[Token]:
    """The tokens of `text`: literals decoded, identifiers, symbols; comments and whitespace skipped."""
    i, n = 0, len(text)
    while i < n:
        i = _skip_space(text, i)
        if i >= n:
            return
        c = text[i]
        head = _HEAD.match(text, i) if c in "xXuUnNeE_" and not _word_before(text, i) else None
        if c == "'" or head:
            token = _literal(text, i, head)
        elif c in "`\"":
            end = _closing(text, i, c)
            token = Token(QUOTED_IDENT, text[i:end], i, text[i + 1:end - 1].replace(c * 2, c))
        elif text.startswith(("/*+", "*/"), i):
            size = 3 if text.startswith("/*+", i) else 2
            token = Token(SYMBOL, text[i:i + size], i)
        elif ident := _IDENT.match(text, i):
            token = Token(IDENT, ident.group(), i, ident.group())
        elif number := _NUMBER.match(text, i):
            token = Token(SYMBOL, number.group(), i)
        else:
            token = Token(SYMBOL, c, i)
        yield token
        i = token.end


def rewrite(text: str, replace: Callable[[Token], str | None]) -> str:
    """`text` with each literal for which `replace` gives a string written as that string (None: kept)."""
    out, last = [], 0
    for token in tokens(text):
        if token.kind not in (STRING, BINARY):
            continue
        new = replace(token)
        if new is not None:
            out.append(text[last:token.start])
            out.append(new)
            last = token.end
    out.append(text[last:])
    return "".join(out)


def _word_before(text: str, i: int) -> bool:
    return i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_$")


def _skip_space(text: str, i: int) -> int:
    """The index of the next token: whitespace and comments (not hints) skipped."""
    n = len(text)
    while i < n:
        if text[i] in _WHITESPACE:
            i += 1
        elif text.startswith("--", i):
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
        elif text.startswith("/*", i) and not text.startswith("/*+", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            break
    return i


def _closing(text: str, start: int, quote_char: str) -> int:
    """Index just past the quoted part opened at `start` (a doubled quote is an escaped one; unclosed: the end)."""
    i, n = start + 1, len(text)
    while i < n:
        if text[i] == quote_char:
            if i + 1 < n and text[i + 1] == quote_char:
                i += 2
                continue
            return i + 1
        i += 1
    return n


def _fragment(text: str, start: int) -> tuple[str, int, str]:
    """(content with '' unescaped, index past it, error) of the '...' at `start`."""
    i, n = start + 1, len(text)
    while i < n:
        if text[i] == "'":
            if text.startswith("'", i + 1):
                i += 2
                continue
            return text[start + 1:i].replace("''", "'"), i + 1, ""
        i += 1
    return text[start + 1:].replace("''", "'"), n, "a string literal is not closed"


def _literal(text: str, start: int, head: re.Match[str] | None) -> Token:
    prefix = head.group(1).upper() if head else ""
    if prefix == "E":
        return _c_style(text, start, head.end())
    content, end, error = _fragment(text, head.end() - 1 if head else start)
    fragments = [content]
    while not error:  # continued: more '...' after whitespace or comments
        nxt = _skip_space(text, end)
        if not text.startswith("'", nxt):
            break
        content, end, error = _fragment(text, nxt)
        fragments.append(content)
    escape = "\\" if prefix == "U&" else ""
    nxt = _skip_space(text, end)
    uescape = _UESCAPE.match(text, nxt) if not error and not _word_before(text, nxt) else None
    if uescape:
        at = _skip_space(text, uescape.end())
        if text.startswith("'", at):
            char, end, error = _fragment(text, at)
            if not escape:
                error = error or "UESCAPE follows a literal that is not U&'...'"
            elif len(char) != 1 or char in "0123456789abcdefABCDEF+'\" \t\r\n\f":
                error = error or f"UESCAPE {quote(char)} is not one character that can escape"
            else:
                escape = char
    if prefix == "X":
        value, why = _hex(fragments)
        return Token(BINARY, text[start:end], start, value, error=error or why)
    value, why = "", ""
    try:
        value = "".join(_unescape(f, escape) if escape else f for f in fragments)
    except ValueError as exc:
        why = str(exc)
    return Token(STRING, text[start:end], start, value, plain=not prefix and len(fragments) == 1,
                 error=error or why)


def _c_style(text: str, start: int, i: int) -> Token:
    """An `E'...'` literal (a backslash escapes the next character, as in C): its extent only. Its escapes
    (`\\x2f`, octal, `\\u`...) are not decoded here, so it is marked as an error: whoever checks refuses it."""
    n = len(text)
    while i < n:
        if text[i] == "\\":
            i += 2
        elif text[i] == "'" and text.startswith("'", i + 1):
            i += 2
        elif text[i] == "'":
            return Token(STRING, text[start:i + 1], start, error=C_STYLE)
        else:
            i += 1
    return Token(STRING, text[start:], start, error="a string literal is not closed")


def _hex(fragments: list[str]) -> tuple[str, str]:
    digits = "".join(fragments)
    if not re.fullmatch(r"[0-9A-Fa-f]*", digits):
        return "", f"X{quote(digits)} is not hex digits"
    if len(digits) % 2:
        digits = "0" + digits
    return bytes.fromhex(digits).decode("latin-1"), ""


def _unescape(fragment: str, escape: str) -> str:
    """A U&'...' fragment read as Calcite's SqlLiteral.unescapeUnicode reads it."""
    out, i, n = [], 0, len(fragment)
    while i < n:
        c = fragment[i]
        if c != escape:
            out.append(c)
            i += 1
            continue
        if fragment.startswith(escape, i + 1):
            out.append(escape)
            i += 2
            continue
        code = fragment[i + 1:i + 5]
        if len(code) < 4 or not _HEX4.fullmatch(code):
            raise ValueError(f"the Unicode escape at {i} of U&{quote(fragment)} is not {escape}XXXX")
        out.append(chr(int(code, 16) & 0xFFFF))
        i += 5
    joined = "".join(out)
    try:  # a surrogate pair is one character; a lone surrogate is none
        return joined.encode("utf-16", "surrogatepass").decode("utf-16")
    except UnicodeDecodeError:
        raise ValueError(f"U&{quote(fragment)} holds half a surrogate pair") from None
