"""What a learner's SQL may do in the grader: read the lab's data, write inside the private workspace, SET the
options a lab uses. Everything else that could reach the grader's machine is refused before it runs.

The grader reruns a submission it does not trust; its statements run in the gateway's JVM (COMPILE PLAN writes
there) and on the TaskManagers (a `filesystem` table reads there). A statement is refused when it

- loads code: `ADD JAR`, `REMOVE JAR`, `CREATE FUNCTION` (a Java, Scala or Python UDF), `CREATE CATALOG`,
  `ALTER CATALOG`, `LOAD MODULE`, `CALL` (a catalog's stored procedure); or reaches a service: `CREATE MODEL`,
  `CREATE CONNECTION`;
- names a path outside the lab's data files and the private workspace: any string literal that is a path or a URI
  (`/etc/passwd`, `file:///...`, `hdfs://...`, in a WITH clause, an `OPTIONS` hint, `ALTER TABLE ... SET`), any
  option value holding a `/`, a relative path in a path option (it resolves against a JVM's working directory);
- names a plan file (COMPILE PLAN, EXECUTE PLAN, COMPILE AND EXECUTE PLAN) outside the private workspace;
- uses a connector other than the lab connectors (filesystem, datagen, print, blackhole), or an option naming a
  class or a jar;
- SETs an option outside what a lab needs (`execution.*`, `sql-client.*`, `table.*`, `parallelism.default`,
  `pipeline.name`, ...) or one naming a path, a jar or a class;
- holds a string literal Flink cannot read either (a bad `U&'...'` escape, an unclosed quote), or a C-style
  `E'...'` literal (`E'\\x2fetc'` is '/etc' to Flink; its escapes are not read here).

Literals are read as Flink's parser reads them (flinklab.flink.sql_literals): `U&'\\002fetc'`, `_UTF8'...'`,
`N'...'`, `X'...'` and continued literals (`'/et' 'c'`) are checked by their value, and :meth:`Sandbox.retarget`
writes every one of them back as a plain '...' literal, so what runs is what was checked.

Before the check, a path whose file name is one of the lab's data files or compiled plans is pointed at this
grader's data dir or private workspace (a learner's SQL names the paths of their own machine).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from flinklab.flink.sql_literals import (
    BINARY,
    C_STYLE,
    IDENT,
    QUOTED_IDENT,
    STRING,
    SYMBOL,
    Token,
    quote,
    rewrite,
    tokens,
)
from flinklab.flink.sql_split import split_statements, strip_comments

_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")  # file:, hdfs:, s3:, http:, ...
_REFUSED_STATEMENTS = (
    (re.compile(r"^\s*(ADD|REMOVE)\s+JAR\b", re.I), "ADD JAR / REMOVE JAR loads code into the grader"),
    (re.compile(r"^\s*(CREATE|ALTER)\s+(OR\s+REPLACE\s+)?(TEMPORARY\s+)?(SYSTEM\s+)?FUNCTION\b", re.I),
     "a user-defined function runs code of the submission's choosing in the grader"),
    (re.compile(r"^\s*(CREATE|ALTER)\s+CATALOG\b", re.I), "a catalog of its own reaches outside the lab"),
    (re.compile(r"^\s*CALL\b", re.I), "CALL runs a catalog's stored procedure, code the lab does not use"),
    (re.compile(r"^\s*LOAD\s+MODULE\b", re.I), "LOAD MODULE loads code into the grader"),
    (re.compile(r"^\s*(CREATE|ALTER)\s+(OR\s+REPLACE\s+)?(TEMPORARY\s+)?(SYSTEM\s+)?(MODEL|CONNECTION)\b", re.I),
     "a model or a connection reaches a service outside the lab"),
)
#: the connectors the labs use; the others reach a network or a system the grader has no business with
ALLOWED_CONNECTORS = ("filesystem", "datagen", "print", "blackhole")
#: option prefixes a learner may SET (a lab sets its runtime mode, the result mode, table.exec.* tuning, ...)
ALLOWED_OPTION_PREFIXES = ("execution.", "sql-client.", "table.", "parallelism.default", "pipeline.name",
                           "pipeline.auto-watermark-interval", "pipeline.operator-chaining", "state.ttl")
_FORBIDDEN_OPTION_WORDS = ("path", "dir", "file", "jar", "class", "resources", "python", "plugin", "savepoint")
#: the last word of an option whose value is a file (`path`, `sink.path`, `x-dir`, ...)
_PATH_OPTION_WORDS = ("path", "dir", "directory", "file", "location", "uri", "url")
REFUSED_HINT = ("The grader runs only the lab's SQL over the lab's data: remove the statement (no jars, functions, "
                "catalogs or modules; files only the lab's data files and its workspace).")
_DATA, _WORKSPACE, _RELATIVE, _OUTSIDE = "data", "workspace", "relative", "outside"


@dataclass(frozen=True)
class Sandbox:
    """Where a submission's SQL may point: the lab's data files (read) and the private workspace."""

    data_dir: Path
    data_files: tuple[str, ...]
    workspace: Path
    workspace_files: tuple[str, ...]  # the lab's files a step writes (compiled plans), by name

    def retarget(self, sql: str) -> str:
        """Every string literal written as a plain '...' (a `U&'...'`, a charset prefix, a continued literal as
        Flink reads it), and every path whose file name is a lab data file or a lab workspace file pointed at this
        grader's copy (the scheme is kept: `file:///x/joins_users.csv` becomes `file://DATA_DIR/joins_users.csv`).
        A literal Flink cannot read is left as it is (:meth:`refusal` names it)."""

        def one(token: Token) -> str | None:
            if token.kind != STRING or token.error:
                return None
            target = self._retargeted(token.value)
            if target is not None:
                return quote(target)
            return None if token.plain else quote(token.value)

        return rewrite(sql, one)

    def _retargeted(self, value: str) -> str | None:
        if not (value.startswith("/") or value.lower().startswith("file:")):
            return None
        name = value.rstrip("/").rsplit("/", 1)[-1]
        if name in self.data_files:
            target = self.data_dir / name
        elif name in self.workspace_files:
            target = self.workspace / name
        else:
            return None
        return f"file://{target}" if value.lower().startswith("file:") else str(target)

    def _where(self, value: str) -> str:
        """_DATA (a lab data file), _WORKSPACE (in the private workspace), _RELATIVE or _OUTSIDE."""
        if value.lower().startswith("file:"):
            value = re.sub(r"^file:(//)?", "", value, flags=re.I)
        elif _URI.match(value):
            return _OUTSIDE  # hdfs:, s3:, http: ...
        if not value.startswith("/"):
            return _RELATIVE
        path = Path(os.path.normpath(value))
        workspace = Path(os.path.normpath(self.workspace))
        if path == workspace or workspace in path.parents:
            return _WORKSPACE
        if path.parent == Path(os.path.normpath(self.data_dir)) and path.name in self.data_files:
            return _DATA
        return _OUTSIDE

    def refusal(self, statement: str) -> str:
        """Why `statement` is refused ("" when it may run)."""
        bare = strip_comments(statement)  # hints kept: an OPTIONS('path' = ...) hint is checked too
        for pattern, why in _REFUSED_STATEMENTS:
            if pattern.match(bare):
                return why
        found = list(tokens(bare))
        for token in found:
            if token.kind in (STRING, BINARY) and token.error:
                return token.error if token.error == C_STYLE else \
                    f"a string literal Flink cannot read either: {token.error}"
        return (self._setting(bare, found) or self._options(found) or self._plan(found)
                or self._literals(found))

    def _setting(self, bare: str, found: list[Token]) -> str:
        """SET/RESET: the key (quoted, U&'...' or bare as in `SET k = v`) and the value, as decoded."""
        if len(found) < 2 or found[0].kind != IDENT or found[0].value.upper() not in ("SET", "RESET"):
            return ""
        equals = next((i for i, t in enumerate(found) if t.kind == SYMBOL and t.text == "="), len(found))
        if found[1].kind == STRING:
            key = found[1].value
        else:  # the legacy `SET table.x = v`: the key is the text up to `=`
            end = found[equals].start if equals < len(found) else len(bare)
            key = bare[found[1].start:end].strip().strip("'")
        key = key.strip().lower()
        if key and (not key.startswith(ALLOWED_OPTION_PREFIXES) or any(w in key for w in _FORBIDDEN_OPTION_WORDS)):
            return f"the option {key!r} is not one a lab sets"
        if equals + 1 < len(found):
            after = found[equals + 1]
            value = after.value if after.kind == STRING else bare[after.start:].strip()
            if ("/" in value or _URI.match(value)) and self._where(value) not in (_DATA, _WORKSPACE):
                return f"the value {value!r} of {key!r} names a file outside the lab's data files and its workspace"
        return ""

    def _options(self, found: list[Token]) -> str:
        """Every `key = 'value'` (a WITH clause, an OPTIONS hint, ALTER TABLE ... SET): the connector, paths."""
        for key_token, equals, value_token in zip(found, found[1:], found[2:], strict=False):
            if equals.kind != SYMBOL or equals.text != "=" or value_token.kind != STRING \
                    or key_token.kind not in (STRING, IDENT, QUOTED_IDENT):
                continue
            key, value = key_token.value.lower(), value_token.value
            if key == "connector" and value.lower() not in ALLOWED_CONNECTORS:
                return f"the connector {value!r} is not one of the lab's ({', '.join(ALLOWED_CONNECTORS)})"
            if key_token.kind == STRING and ("class" in key or "jar" in key):
                return f"the option {key!r} names code to load"
            where = self._where(value)
            is_path = re.split(r"[._-]", key)[-1] in _PATH_OPTION_WORDS
            if is_path and where == _RELATIVE:
                return (f"the path {value!r} is relative (it resolves against a JVM's working directory): "
                        "give one inside the lab's data files or its workspace")
            if (is_path or (key_token.kind == STRING and "/" in value)) and where not in (_DATA, _WORKSPACE):
                return f"the path {value!r} is outside the lab's data files and its workspace"
        return ""

    def _plan(self, found: list[Token]) -> str:
        """COMPILE PLAN, EXECUTE PLAN, COMPILE AND EXECUTE PLAN: the plan file is the private workspace's."""
        for word, literal in zip(found, found[1:], strict=False):
            if word.kind == IDENT and word.value.upper() == "PLAN" and literal.kind == STRING:
                where = self._where(literal.value)
                if where == _RELATIVE:
                    return (f"the plan file {literal.value!r} is a relative path (it resolves against the gateway's "
                            "working directory): give one inside the lab's workspace")
                if where != _WORKSPACE:
                    return f"the plan file {literal.value!r} is outside the lab's workspace"
        return ""

    def _literals(self, found: list[Token]) -> str:
        for token in found:
            value = token.value
            if token.kind in (STRING, BINARY) and (value.startswith("/") or _URI.match(value)) \
                    and _looks_like_path(value) and self._where(value) not in (_DATA, _WORKSPACE):
                return f"{value!r} names a file outside the lab's data files and its workspace"
        return ""

    def refusals(self, sql: str) -> list[tuple[str, str]]:
        """(statement, why) for every refused statement of a script."""
        found = []
        for statement in split_statements(sql):
            why = self.refusal(statement)
            if why:
                found.append((statement, why))
        return found


def _looks_like_path(value: str) -> bool:
    """A literal that names a file: `/x/y`, `file:...` or a URI with `//` (not a time like '10:00' or a word)."""
    return bool(re.match(r"/[A-Za-z0-9._~-]", value)) or value.lower().startswith("file:") or "://" in value
