"""What a learner's SQL may do in the grader: read the lab's data, write inside the private workspace, SET the
options a lab uses. Everything else that could reach the grader's machine is refused before it runs.

The grader reruns a submission it does not trust; its statements run in the gateway's JVM (COMPILE PLAN writes
there) and on the TaskManagers (a `filesystem` table reads there). A statement is refused when it

- loads code: `ADD JAR`, `REMOVE JAR`, `CREATE FUNCTION` (a Java, Scala or Python UDF), `CREATE CATALOG`,
  `LOAD MODULE`;
- names a path outside the lab's data files and the private workspace: any string literal that is a path or a URI
  (`/etc/passwd`, `file:///...`, `hdfs://...`, in a WITH clause, an `OPTIONS` hint, `ALTER TABLE ... SET`, COMPILE
  or EXECUTE PLAN), or a relative `path` (it resolves against a JVM's working directory);
- uses a connector other than the lab connectors (filesystem, datagen, print, blackhole);
- SETs an option outside what a lab needs (`execution.*`, `sql-client.*`, `table.*`, `parallelism.default`,
  `pipeline.name`, ...) or one naming a path, a jar or a class.

Before the check, a path whose file name is one of the lab's data files or compiled plans is pointed at this
grader's data dir or private workspace (a learner's SQL names the paths of their own machine).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from flinklab.flink.sql_split import split_statements, strip_comments

_LITERAL = re.compile(r"'((?:[^']|'')*)'")
#: a comment (kept as it is: an apostrophe in it opens no string) or a string literal; a hint's strings count
_COMMENT_OR_LITERAL = re.compile(r"(--[^\n]*|/\*(?!\+).*?(?:\*/|$))|'((?:[^']|'')*)'", re.DOTALL)
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")  # file:, hdfs:, s3:, http:, ...
_CODE_LOADING = (
    (re.compile(r"^\s*(ADD|REMOVE)\s+JAR\b", re.I), "ADD JAR / REMOVE JAR loads code into the grader"),
    (re.compile(r"^\s*(CREATE|ALTER)\s+(OR\s+REPLACE\s+)?(TEMPORARY\s+)?(SYSTEM\s+)?FUNCTION\b", re.I),
     "a user-defined function runs code of the submission's choosing in the grader"),
    (re.compile(r"^\s*CREATE\s+CATALOG\b", re.I), "a catalog of its own reaches outside the lab"),
    (re.compile(r"^\s*LOAD\s+MODULE\b", re.I), "LOAD MODULE loads code into the grader"),
)
_CONNECTOR = re.compile(r"'connector'\s*=\s*'((?:[^']|'')*)'", re.I)
_PATH_OPTION = re.compile(r"'path'\s*=\s*'((?:[^']|'')*)'", re.I)
_PLAN = re.compile(r"^\s*(COMPILE|EXECUTE)\s+PLAN\s+'((?:[^']|'')*)'", re.I)
_SET = re.compile(r"^\s*(SET|RESET)\b\s*'?([^'=\s;]*)", re.I)
#: the connectors the labs use; the others reach a network or a system the grader has no business with
ALLOWED_CONNECTORS = ("filesystem", "datagen", "print", "blackhole")
#: option prefixes a learner may SET (a lab sets its runtime mode, the result mode, table.exec.* tuning, ...)
ALLOWED_OPTION_PREFIXES = ("execution.", "sql-client.", "table.", "parallelism.default", "pipeline.name",
                           "pipeline.auto-watermark-interval", "pipeline.operator-chaining", "state.ttl")
_FORBIDDEN_OPTION_WORDS = ("path", "dir", "file", "jar", "class", "resources", "python", "plugin", "savepoint")
REFUSED_HINT = ("The grader runs only the lab's SQL over the lab's data: remove the statement (no jars, functions, "
                "catalogs or modules; files only the lab's data files and its workspace).")


@dataclass(frozen=True)
class Sandbox:
    """Where a submission's SQL may point: the lab's data files (read) and the private workspace."""

    data_dir: Path
    data_files: tuple[str, ...]
    workspace: Path
    workspace_files: tuple[str, ...]  # the lab's files a step writes (compiled plans), by name

    def retarget(self, sql: str) -> str:
        """Point every path literal whose file name is a lab data file or a lab workspace file at this grader's
        copy (the scheme is kept: `file:///x/joins_users.csv` becomes `file://DATA_DIR/joins_users.csv`)."""

        def one(match: re.Match[str]) -> str:
            if match.group(1) is not None:
                return match.group(0)
            value = match.group(2).replace("''", "'")
            if not (value.startswith("/") or value.lower().startswith("file:")):
                return match.group(0)
            name = value.rstrip("/").rsplit("/", 1)[-1]
            if name in self.data_files:
                target = self.data_dir / name
            elif name in self.workspace_files:
                target = self.workspace / name
            else:
                return match.group(0)
            text = f"file://{target}" if value.lower().startswith("file:") else str(target)
            return "'" + text.replace("'", "''") + "'"

        return _COMMENT_OR_LITERAL.sub(one, sql)

    def _allowed_path(self, value: str) -> bool:
        if value.lower().startswith("file:"):
            value = re.sub(r"^file:(//)?", "", value, flags=re.I)
        elif _URI.match(value):
            return False  # hdfs:, s3:, http: ...
        if not value.startswith("/"):
            return False
        path = Path(os.path.normpath(value))
        workspace = Path(os.path.normpath(self.workspace))
        return (path.parent == Path(os.path.normpath(self.data_dir)) and path.name in self.data_files) or (
            path == workspace or workspace in path.parents)

    def refusal(self, statement: str) -> str:
        """Why `statement` is refused ("" when it may run)."""
        bare = strip_comments(statement)  # hints kept: an OPTIONS('path' = ...) hint is checked too
        for pattern, why in _CODE_LOADING:
            if pattern.match(bare):
                return why
        setting = _SET.match(bare)
        if setting and setting.group(2):
            key = setting.group(2).lower()
            if not key.startswith(ALLOWED_OPTION_PREFIXES) or any(w in key for w in _FORBIDDEN_OPTION_WORDS):
                return f"the option {key!r} is not one a lab sets"
        for connector in _CONNECTOR.findall(bare):
            if connector.lower() not in ALLOWED_CONNECTORS:
                return f"the connector {connector!r} is not one of the lab's ({', '.join(ALLOWED_CONNECTORS)})"
        for value in _PATH_OPTION.findall(bare):
            if not self._allowed_path(value.replace("''", "'")):
                return f"the path {value!r} is outside the lab's data files and its workspace"
        plan = _PLAN.match(bare)
        if plan and not self._allowed_path(plan.group(2).replace("''", "'")):
            return f"the plan file {plan.group(2)!r} is outside the lab's workspace"
        for value in _LITERAL.findall(bare):
            value = value.replace("''", "'")
            if (value.startswith("/") or _URI.match(value)) and _looks_like_path(value) \
                    and not self._allowed_path(value):
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
