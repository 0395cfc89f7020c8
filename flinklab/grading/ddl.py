"""The tables a DDL script defines (`CREATE [TEMPORARY] TABLE name (columns) WITH (options)`), read with the SQL
splitter, and how a compiled plan's table-source-scan nodes differ from them: what tells a plan compiled from
today's `ddl.sql` from a stale one, whatever the files' times say.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from flinklab.flink.sql_split import split_statements, strip_comments

_CREATE_TABLE = re.compile(
    r"^\s*CREATE\s+(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>[\w.`]+)\s*\(", re.IGNORECASE)
_WITH = re.compile(r"\)\s*WITH\s*\(", re.IGNORECASE)
_OPTION = re.compile(r"'((?:[^']|'')*)'\s*=\s*'((?:[^']|'')*)'")
_NOT_A_COLUMN = re.compile(r"^(WATERMARK|PRIMARY|CONSTRAINT|PERIOD|LIKE)\b", re.IGNORECASE)
_WATERMARK = re.compile(r"^WATERMARK\s+FOR\s+([\w`]+)\s+AS\s+(.+)$", re.IGNORECASE | re.DOTALL)
_PRIMARY_KEY = re.compile(r"\bPRIMARY\s+KEY\s*\(([^)]*)\)", re.IGNORECASE)
_INLINE_KEY = re.compile(r"\bPRIMARY\s+KEY\b", re.IGNORECASE)
_PROCTIME = re.compile(r"\bAS\s+PROCTIME\s*\(\s*\)", re.IGNORECASE)


@dataclass(frozen=True)
class TableDef:
    """One table of a DDL script: its name, its column names in order and its WITH options; its time attributes
    (the columns a WATERMARK is declared for, the computed `AS PROCTIME()` ones) and primary key columns."""

    name: str
    columns: tuple[str, ...]
    options: Mapping[str, str]
    rowtime: Mapping[str, str] = field(default_factory=dict)  # column -> its WATERMARK expression as written
    proctime: tuple[str, ...] = ()
    primary_key: tuple[str, ...] = ()
    types: Mapping[str, str] = field(default_factory=dict)  # column -> its type as written (upper case)


def _bare(name: str) -> str:
    """The last part of a (possibly qualified, possibly quoted) identifier, lower-cased as Flink resolves it."""
    return name.split(".")[-1].strip("`").lower()


def _outside_quotes(text: str, start: int = 0, depth: int = 0) -> Iterator[tuple[int, str, int]]:
    """(index, char, paren depth after it) for every char of `text` from `start` outside quotes."""
    quote = ""
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'`\"":
            quote = ch
        else:
            depth += (ch == "(") - (ch == ")")
            yield i, ch, depth


def _top_level_parts(text: str) -> list[str]:
    """`text` split at the commas outside parentheses and quotes (a column list, e.g. DECIMAL(10, 2) stays whole)."""
    parts, start = [], 0
    for i, ch, depth in _outside_quotes(text):
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _closing_paren(text: str, start: int) -> int:
    """Index of the `)` closing the `(` just before `start` (quotes respected); len(text) when unbalanced."""
    for i, ch, depth in _outside_quotes(text, start, depth=1):
        if ch == ")" and depth == 0:
            return i
    return len(text)


def tables_of(ddl: str) -> dict[str, TableDef]:
    """Every `CREATE TABLE` of the script by bare lower-case name; other statements and unparsable parts are
    skipped (Flink itself reports a broken DDL when the step runs)."""
    tables = {}
    for statement in split_statements(ddl):
        code = strip_comments(statement)
        head = _CREATE_TABLE.match(code)
        if head is None:
            continue
        end = _closing_paren(code, head.end())
        parts = _top_level_parts(code[head.end():end])
        columns = tuple(_bare(part.split()[0]) for part in parts if not _NOT_A_COLUMN.match(part))
        rowtime, proctime, key, types = {}, [], [], {}
        for part in parts:
            if (watermark := _WATERMARK.match(part)) is not None:
                rowtime[_bare(watermark.group(1))] = " ".join(watermark.group(2).split())
            elif (pk := _PRIMARY_KEY.search(part)) is not None and _NOT_A_COLUMN.match(part):
                key += [_bare(c.strip()) for c in pk.group(1).split(",") if c.strip()]
            elif not _NOT_A_COLUMN.match(part):
                column, *rest = part.split(None, 1)
                types[_bare(column)] = " ".join("".join(rest).split()).upper()
                if _PROCTIME.search(part):
                    proctime.append(_bare(column))
                if _INLINE_KEY.search(part):
                    key.append(_bare(column))
        with_clause = _WITH.match(code, end)
        options = {}
        if with_clause is not None:
            body = code[with_clause.end():_closing_paren(code, with_clause.end())]
            options = {k.replace("''", "'"): v.replace("''", "'") for k, v in _OPTION.findall(body)}
        tables[_bare(head.group("name"))] = TableDef(_bare(head.group("name")), columns, options, rowtime,
                                                     tuple(proctime), tuple(key), types)
    return tables


def _same_option(key: str, planned: str, defined: str) -> bool:
    # a path names the data by its file: the data dir may move between compiling and grading (another machine, a
    # capture's temporary dir), the file a table reads may not
    if key == "path":
        return PurePosixPath(planned.rstrip("/")).name == PurePosixPath(defined.rstrip("/")).name
    return planned == defined


def scan_differences(scan: Mapping[str, Any], tables: Mapping[str, TableDef], ddl_name: str) -> list[str]:
    """How one table-source-scan node's table (its `scanTableSource.table`) differs from the DDL's: [] when the
    plan was compiled from the table as defined now."""
    table = scan.get("scanTableSource", {}).get("table", {}) if isinstance(scan.get("scanTableSource"), dict) else {}
    name = _bare(str(table.get("identifier") or "?"))
    defined = tables.get(name)
    if defined is None:
        return [f"it scans {name}, which {ddl_name} does not define"]
    resolved = table.get("resolvedTable") if isinstance(table.get("resolvedTable"), dict) else {}
    schema = resolved.get("schema") if isinstance(resolved.get("schema"), dict) else {}
    planned_columns = tuple(_bare(str(c.get("name", ""))) for c in schema.get("columns") or [] if isinstance(c, dict))
    problems = []
    if planned_columns != defined.columns:
        problems.append(f"{name} has columns ({', '.join(planned_columns)}) in the plan, "
                        f"({', '.join(defined.columns)}) in {ddl_name}")
    planned = resolved.get("options") if isinstance(resolved.get("options"), dict) else {}
    for key in sorted(set(planned) | set(defined.options)):
        was, now = planned.get(key), defined.options.get(key)
        if was is None or now is None or not _same_option(key, str(was), now):
            problems.append(f"{name} option '{key}' is {_shown(was)} in the plan, {_shown(now)} in {ddl_name}")
    return problems


def _shown(value: Any) -> str:
    return "unset" if value is None else f"'{value}'"
