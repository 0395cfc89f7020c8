"""Completion candidates beyond Flink's parser hints: the session's tables, views, their columns, functions, and
`SET` keys with their current values.

Flink's own complete-statement endpoint answers with its SQL parser's hints (mostly keywords). A learner exploring
a lab wants the names of the tables `-i ddl.sql` created and their columns too, so the gateway adds them. The
catalog is read through the catalog API (no planning: safe off the session's planner thread); the choice of
candidates is a pure function (:func:`candidates`) over a :class:`CatalogSnapshot`, tested without a JVM.
"""

from __future__ import annotations

import re
import weakref
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


_BUILT_IN_FUNCTIONS: list[str] = []  # the same for every session of a JVM: listed once


def _joined(jvm: Any, java_list: Any) -> list[str]:
    """A java.util.List of strings as Python strings in one py4j call (iterating costs a round trip each)."""
    joined = str(jvm.java.lang.String.join("\n", java_list))
    return joined.split("\n") if joined else []


#: per session: (what its catalog was read at, tables, views). A py4j call costs ~0.3 ms and reading every column
#: of a lab's tables takes ~100 of them, so the catalog is read again only after a catalog statement ran
#: (the session's catalog log grew) or the current catalog or database changed.
_CACHE: weakref.WeakKeyDictionary[Any, tuple[tuple[Any, ...], dict[str, list[str]], dict[str, list[str]]]] = \
    weakref.WeakKeyDictionary()


def snapshot_of(session: Any) -> CatalogSnapshot:
    """The session's catalog as completion needs it: current catalog and database only (what a bare name means)."""
    tenv = session.env()
    jvm = session.jvm.jvm
    key = (len(getattr(session, "_catalog_log", ())), id(tenv), str(tenv.getCurrentCatalog()),
           str(tenv.getCurrentDatabase()))
    cached = _CACHE.get(session)
    if cached is None or cached[0] != key:
        cached = (key, *_relations(tenv, jvm))
        _CACHE[session] = cached
    _, tables, views = cached
    user = [str(f) for f in tenv.listUserDefinedFunctions()]
    if not _BUILT_IN_FUNCTIONS:
        _BUILT_IN_FUNCTIONS.extend(sorted({str(f) for f in tenv.listFunctions()} - set(user)))
    return CatalogSnapshot(tables=tables, views=views, functions=sorted({*user, *_BUILT_IN_FUNCTIONS}),
                           options=dict(session.properties()))


def _relations(tenv: Any, jvm: Any) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(tables, views) of the current database, each name -> its column names (catalog calls answering lists:
    one py4j call each, where the TableEnvironment's arrays cost one per name)."""
    catalog = tenv.getCatalog(tenv.getCurrentCatalog()).get()
    database = str(tenv.getCurrentDatabase())
    views = {*_joined(jvm, catalog.listViews(database)), *(str(v) for v in tenv.listTemporaryViews())}
    names = {*_joined(jvm, catalog.listTables(database)), *(str(t) for t in tenv.listTemporaryTables())}
    tables: dict[str, list[str]] = {}
    view_columns: dict[str, list[str]] = {}
    for name in sorted(names | views):
        try:
            table = catalog.getTable(jvm.org.apache.flink.table.catalog.ObjectPath(database, name))
            columns = [str(c.getName()) for c in table.getUnresolvedSchema().getColumns()]
        except Exception:  # noqa: BLE001 - a temporary table or view is not in the catalog: named, no columns
            columns = []
        (view_columns if name in views else tables)[name] = columns
    return tables, view_columns


def extra_candidates(session: Any, statement: str, position: int) -> list[str]:
    """The hook's entry point: our candidates for `statement` at `position` in `session` ([] when the catalog
    cannot be read; completion never fails a keystroke)."""
    try:
        return candidates(statement, position, snapshot_of(session))
    except Exception:  # noqa: BLE001 - a failing catalog read has no candidates
        return []
