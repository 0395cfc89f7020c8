"""Completion candidates beyond Flink's parser hints: the session's tables, views, their columns, functions, and
`SET` keys with their current values.

Flink's own complete-statement endpoint answers with its SQL parser's hints (mostly keywords). A learner exploring
a lab wants the names of the tables `-i ddl.sql` created and their columns too, so the gateway adds them. The
catalog is read through the catalog API (no planning: safe off the session's planner thread); the choice of
candidates is a pure function (:func:`candidates`) over a :class:`CatalogSnapshot`, tested without a JVM.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: Options a learner sets often, with Flink 2.2's defaults, offered after `SET` even when the session has none.
KNOWN_OPTIONS: dict[str, str] = {
    "execution.runtime-mode": "streaming",
    "parallelism.default": "1",
    "pipeline.name": "",
    "sql-client.execution.result-mode": "table",
    "sql-client.execution.max-table-result.rows": "1000000",
    "sql-client.display.max-column-width": "30",
    "sql-client.display.print-time-cost": "true",
    "sql-client.display.show-line-numbers": "false",
    "sql-client.display.color-schema": "default",
    "sql-client.verbose": "false",
    "table.display.max-column-width": "30",
    "table.dml-sync": "false",
    "table.exec.source.idle-timeout": "0 ms",
    "table.exec.state.ttl": "0 ms",
    "table.exec.mini-batch.enabled": "false",
    "table.local-time-zone": "default",
}

_WORD = re.compile(r"[A-Za-z0-9_$`.]*$")
_SET_HEAD = re.compile(r"^\s*(SET|RESET)\s+'?([^'=\s]*)$", re.IGNORECASE | re.DOTALL)
_TABLE_REF = re.compile(r"\b(?:FROM|JOIN|INTO|TABLE|DESCRIBE|DESC)\s+`?([A-Za-z_][A-Za-z0-9_]*)`?", re.IGNORECASE)


@dataclass
class CatalogSnapshot:
    """What completion needs of a session: its tables and views (name -> column names), functions, options."""

    tables: dict[str, list[str]] = field(default_factory=dict)
    views: dict[str, list[str]] = field(default_factory=dict)
    functions: list[str] = field(default_factory=list)
    options: dict[str, str] = field(default_factory=dict)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def word_before(statement: str, position: int) -> str:
    """The identifier being typed just before `position` (may be empty; a qualified name keeps its dots)."""
    match = _WORD.search(statement[: max(0, min(position, len(statement)))])
    return match.group() if match else ""


def set_candidates(prefix: str, options: Mapping[str, str]) -> list[str]:
    """`'key' = 'value'` for every known or set option whose key starts with `prefix` (the current value)."""
    merged = {**KNOWN_OPTIONS, **options}
    return [f"{_quote(key)} = {_quote(value)}" for key, value in sorted(merged.items()) if key.startswith(prefix)]


def candidates(statement: str, position: int, snapshot: CatalogSnapshot) -> list[str]:
    """The extra candidates for `statement` at `position`, best first: after `SET`/`RESET` the options; otherwise
    the columns of the tables the statement names, then table and view names, then functions. Each candidate
    replaces :func:`word_before` (matched case-insensitively; a `t.` prefix completes `t`'s columns)."""
    before = statement[: max(0, min(position, len(statement)))]
    head = _SET_HEAD.match(before)
    if head:
        keys = set_candidates(head.group(2), snapshot.options)
        return keys if head.group(1).upper() == "SET" else [k.split(" = ")[0] for k in keys]
    word = word_before(statement, position).lstrip("`")
    relations = {**snapshot.tables, **snapshot.views}
    if "." in word:
        owner, _, column_prefix = word.rpartition(".")
        columns = relations.get(owner.split(".")[-1].strip("`"), [])
        return [f"{owner}.{c}" for c in columns if c.lower().startswith(column_prefix.lower())]
    named = [m.group(1) for m in _TABLE_REF.finditer(statement)]
    columns: list[str] = []
    for name in named:
        columns += relations.get(name, [])
    if not named:
        columns = [c for cols in relations.values() for c in cols]
    pool = _unique([*columns, *sorted(relations), *sorted(snapshot.functions)])
    low = word.lower()
    return [c for c in pool if c.lower().startswith(low) and c.lower() != low]


def _unique(items: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)


def merge(hints: Iterable[str], extra: Iterable[str]) -> list[str]:
    """Flink's parser hints after ours (ours name the learner's own tables), without duplicates."""
    return _unique([*extra, *hints])


# ---- reading a session's catalog (on the JVM) -------------------------------------------------------------


def snapshot_of(session: Any) -> CatalogSnapshot:
    """The session's catalog as completion needs it: current catalog and database only (what a bare name means)."""
    tenv = session.env()
    jvm = session.jvm.jvm
    catalog_name = str(tenv.getCurrentCatalog())
    database = str(tenv.getCurrentDatabase())
    catalog = tenv.getCatalog(catalog_name).get()
    views = {str(v) for v in tenv.listViews()}
    tables: dict[str, list[str]] = {}
    view_columns: dict[str, list[str]] = {}
    for name in tenv.listTables():
        name = str(name)
        try:
            table = catalog.getTable(jvm.org.apache.flink.table.catalog.ObjectPath(database, name))
            columns = [str(c.getName()) for c in table.getUnresolvedSchema().getColumns()]
        except Exception:  # noqa: BLE001 - a temporary table or view is not in the catalog: named, no columns
            columns = []
        (view_columns if name in views else tables)[name] = columns
    functions = [str(f) for f in tenv.listUserDefinedFunctions()] + [str(f) for f in tenv.listFunctions()]
    return CatalogSnapshot(tables=tables, views=view_columns, functions=sorted(set(functions)),
                           options=dict(session.properties()))


def extra_candidates(session: Any, statement: str, position: int) -> list[str]:
    """The hook's entry point: our candidates for `statement` at `position` in `session` ([] when the catalog
    cannot be read; completion never fails a keystroke)."""
    try:
        return candidates(statement, position, snapshot_of(session))
    except Exception:  # noqa: BLE001 - a failing catalog read has no candidates
        return []
