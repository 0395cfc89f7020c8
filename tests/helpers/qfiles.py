"""Flink's SQL-client golden files (`*.q`, tests/data/q/): parse them, plan their replay through `sql-client.sh -f`,
split what our client printed per statement, and compare with the expected blocks.

Format, as Flink's own runner reads it (`SqlScriptReader`, non-multi-statement mode, and `CliClientITCase`, 2.x):

- Lines starting with `#` and blank lines before a statement are its comment (`--` lines are part of the SQL).
- A statement runs from its first line to the first line whose trimmed text ends with `;`.
- The expected output follows, up to a line starting with `!` (the marker: `!ok`, `!info`, `!error`, `!warning`),
  which names the colour the real client printed the block in. (The multi-statement form, with `!output` between a
  statement and its block, as in flink-sql-gateway's files, is not read here; no file kept here uses it.)
- Before parsing, `$VAR_...` placeholders are replaced in the whole file (`StringUtils.replaceEach`): temp dirs
  (`$VAR_STREAMING_PATH`, `$VAR_BATCH_PATH`, `...2`), the cluster (`$VAR_REST_PORT`, `$VAR_JOBMANAGER_RPC_ADDRESS`),
  the generated UDF jar (`$VAR_UDF_JAR_PATH`, `_DASH`, `_SPACE`, `$VAR_PIPELINE_JARS_URL`) and test-only connector
  data ids. Longer keys win where one is the prefix of another (`$VAR_UDF_JAR_PATH_DASH` over `$VAR_UDF_JAR_PATH`).
- The real runner feeds all statements to one interactive session (DumbTerminal, statements masked, so each block
  starts after the `Flink SQL> ` prompt) configured with `sql-client.display.print-time-cost=false` and
  `table.exec.legacy-cast-behaviour=DISABLED`; errors print without stack traces (`sql-client.verbose` is false:
  `[ERROR] Could not execute SQL statement. Reason:` then `<root cause class>: <message>`), and the session goes on
  after an error. It normalizes the actual output only: colour codes removed, trailing spaces of every line
  removed, a `Job ID: <id>` line becomes `Job ID:`, and `"id" : <n>` in compiled plans becomes `"id" : `.

The replay here passes the same two defaults as `-D` and keeps those four normalizations, plus one (see
:data:`NORMALIZATIONS`): trailing blank lines of a block are ignored (blocks end at the next prompt differently in
a terminal and in an `-f` echo). Time costs are not normalized: with print-time-cost off, a printed time is a
difference. Our client echoes `Flink SQL> <statement>;` before each
block and stops at the first failing statement, so a file runs in chunks (:class:`Replay`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

Q_DIR = Path(__file__).parent.parent / "data" / "q"
SKIPS_FILE = Q_DIR / "skips.yaml"

PROMPT = "Flink SQL> "
CONTINUATION = "> "
SHUTDOWN = "Shutting down the session..."
ERROR_HEAD = "[ERROR] Could not execute SQL statement."

#: What the real runner's session has set before the first statement (CliClientITCase's DefaultContext).
HARNESS_DEFINES = {
    "sql-client.display.print-time-cost": "false",
    "table.exec.legacy-cast-behaviour": "DISABLED",
}

#: Every normalization applied to our output before comparing, and why (the first four are the real runner's own).
NORMALIZATIONS = {
    "ansi": "colour codes removed (CliClientITCase strips the ERROR/WARNING/INFO colour tags)",
    "trailing-spaces": "trailing spaces of each line removed (CliClientITCase: 'we don't compare trailing spaces')",
    "job-id": "`Job ID: <id>` becomes `Job ID:` (CliClientITCase)",
    "plan-node-id": '`"id" : <n>` becomes `"id" : ` in JSON plans (CliClientITCase.removeExecNodeId)',
    "trailing-blank-lines": "blank lines at the end of a block ignored: a terminal ends a block at the next prompt, "
    "our -f output puts one newline before each echo",
}

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_JOB_ID = re.compile(r"^Job ID:.*$", re.MULTILINE)
_NODE_ID = re.compile(r'"id" : \d+')
_CTAS = re.compile(r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?TABLE\b.*\bAS\s+(?:SELECT|WITH|VALUES)\b",
                   re.IGNORECASE | re.DOTALL)
_REPLAYED_HEADS = ("SET", "RESET", "CREATE", "DROP", "ALTER", "USE", "LOAD", "UNLOAD", "ADD", "REMOVE")


MARK_KINDS = ("skip", "xfail")


class QFormatError(ValueError):
    """A `.q` file or the skip list does not read as Flink's runner reads it."""


@dataclass(frozen=True)
class QCase:
    """One statement of a `.q` file and the block the real client printed for it."""

    file: str
    index: int  #: 0-based position among the file's statements
    line: int  #: 1-based line of the statement's first line
    comment: str  #: the `#` and blank lines before it
    sql: str  #: as in the file, each line ending with a newline (as SqlScriptReader keeps it)
    expected: str  #: the block's lines joined by newlines, no final newline
    marker: str  #: `!ok`, `!info`, `!error`, ...

    @property
    def statement(self) -> str:
        """The statement as one writes it into a script: no surrounding blank space, no final `;`."""
        return self.sql.strip().removesuffix(";").rstrip()

    @property
    def case_id(self) -> str:
        words = re.sub(r"[^a-z0-9]+", "-", " ".join(self.statement.lower().split()[:4])).strip("-")
        return f"{self.file}:{self.index:03d}-{words}"


def substitute(text: str, variables: Mapping[str, str]) -> str:
    """Replace `$VAR_...` placeholders in one pass, the longest key first where keys share a prefix."""
    if not variables:
        return text
    pattern = re.compile("|".join(re.escape(k) for k in sorted(variables, key=len, reverse=True)))
    return pattern.sub(lambda m: variables[m.group(0)], text)


#: What opens and closes each state of Flink's SqlClientParserState in the default dialect, in the order it tries
#: them (a hint before a block comment); '' inside a string closes it and opens another, as there
_STATES = (("'", "'"), ("`", "`"), ("--", "\n"), ("/*+", "*/"), ("/*", "*/"))


def ends_in_code(sql: str) -> bool:
    """Whether `sql` ends outside a string, a quoted identifier, a comment or a hint: the state Flink's
    SqlScriptReader asks of a line ending with `;` before it ends the statement there
    (SqlClientParserState.computeCurrentStateAtTheEndOfLine, default dialect)."""
    i, end = 0, None
    while i < len(sql):
        if end is None:
            opened = next(((start, close) for start, close in _STATES if sql.startswith(start, i)), None)
            if opened is not None:
                end = opened[1]
                i += len(opened[0])
                continue
        elif sql.startswith(end, i):
            end = None  # as there, the marker's first character closes it and the scan goes on after it
        i += 1
    return end is None


def parse_q(text: str, file: str = "<q>") -> list[QCase]:
    """The statements of a `.q` text, as SqlScriptReader reads them (a statement without a marker is dropped,
    as there; a file that ends inside a statement or a block is an error here, so a truncated copy is noticed)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    cases: list[QCase] = []
    i = 0
    while i < len(lines):
        comment: list[str] = []
        while i < len(lines) and (lines[i].startswith("#") or not lines[i].strip()):
            comment.append(lines[i])
            i += 1
        if i == len(lines):
            break
        first = i
        sql: list[str] = []
        while i < len(lines):
            sql.append(lines[i])
            i += 1
            if sql[-1].strip().endswith(";") and ends_in_code("\n".join(sql).strip()):
                break
        else:
            raise QFormatError(f"{file}:{first + 1}: statement without a closing ';'")
        block: list[str] = []
        while i < len(lines) and not lines[i].startswith("!"):
            block.append(lines[i])
            i += 1
        if i == len(lines):
            raise QFormatError(f"{file}:{first + 1}: expected output without a closing '!' marker")
        marker = lines[i].strip()
        i += 1
        cases.append(
            QCase(
                file=file,
                index=len(cases),
                line=first + 1,
                comment="".join(c + "\n" for c in comment),
                sql="".join(s + "\n" for s in sql),
                expected="\n".join(block),
                marker=marker,
            )
        )
    return cases


def load_q(name: str, variables: Mapping[str, str] = {}) -> list[QCase]:
    """The cases of tests/data/q/`name` after substituting `variables`."""
    return parse_q(substitute((Q_DIR / name).read_text(encoding="utf-8"), variables), name)


def q_files() -> list[str]:
    """The `.q` files kept here, sorted."""
    return sorted(p.name for p in Q_DIR.glob("*.q"))


# ---- the skip / xfail list ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mark:
    """A case left out (`skip`) or known to differ today (`xfail`), with why."""

    kind: str  #: "skip" or "xfail"
    index: int
    sql: str  #: a substring of the case's statement, so an entry cannot silently move to another case
    reason: str


@dataclass(frozen=True)
class FileRules:
    """What skips.yaml says about one `.q` file."""

    marks: dict[int, Mark] = field(default_factory=dict)
    #: (old, new) replacements in the *expected* text only, for a stored file older than 2.2 (version skew)
    expected_rewrites: tuple[tuple[str, str], ...] = ()


def load_rules(path: Path = SKIPS_FILE) -> dict[str, FileRules]:
    """skips.yaml: per file, `skip:` and `xfail:` entries (`case`, `sql`, `reason`) and `version_skew:` rewrites."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    rules: dict[str, FileRules] = {}
    for file, spec in (data.get("files") or {}).items():
        marks: dict[int, Mark] = {}
        for kind in MARK_KINDS:
            for entry in spec.get(kind) or []:
                mark = Mark(kind, int(entry["case"]), str(entry["sql"]), str(entry.get("reason", "")).strip())
                if not mark.reason:
                    raise QFormatError(f"{path.name}: {file} case {mark.index}: a {kind} without a reason")
                if mark.index in marks:
                    raise QFormatError(f"{path.name}: {file} case {mark.index} is listed twice")
                marks[mark.index] = mark
        rewrites = []
        for entry in spec.get("version_skew") or []:
            if not str(entry.get("reason", "")).strip():
                raise QFormatError(f"{path.name}: {file}: a version_skew rewrite without a reason")
            rewrites.append((str(entry["old"]), str(entry["new"])))
        rules[file] = FileRules(marks, tuple(rewrites))
    return rules


@dataclass(frozen=True)
class Intermittent:
    """A known bug that strikes a random case in some runs: a case whose block (ours) holds `error` is reported as
    an expected failure, not a pass, whichever case it hits."""

    error: str
    reason: str


def load_intermittent(path: Path = SKIPS_FILE) -> list[Intermittent]:
    """skips.yaml's top-level `intermittent:` entries (`error`, `reason`)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    found = []
    for entry in data.get("intermittent") or []:
        item = Intermittent(str(entry.get("error", "")), str(entry.get("reason", "")).strip())
        if not item.error or not item.reason:
            raise QFormatError(f"{path.name}: an intermittent entry needs an error text and a reason")
        found.append(item)
    return found


def check_rules(cases: Sequence[QCase], rules: FileRules) -> list[str]:
    """Problems of a file's rules against its cases: an entry whose case is missing or whose `sql` is not in it."""
    problems = []
    by_index = {c.index: c for c in cases}
    for mark in rules.marks.values():
        case = by_index.get(mark.index)
        if case is None:
            problems.append(f"case {mark.index} does not exist")
        elif mark.sql not in case.sql:
            problems.append(f"case {mark.index} does not contain {mark.sql!r}: {case.statement[:60]!r}")
    return problems


def expected_block(case: QCase, rules: FileRules) -> str:
    """The block to compare with: the file's, with the file's version-skew rewrites applied."""
    text = case.expected
    for old, new in rules.expected_rewrites:
        text = text.replace(old, new)
    return text


# ---- our output -------------------------------------------------------------------------------------------------


def echo(statement: str) -> str:
    """How our client echoes a statement: `Flink SQL> ` first, `> ` before each further line, `;` at the end."""
    lines = statement.split("\n")
    return "\n".join([PROMPT + lines[0]] + [CONTINUATION + line for line in lines[1:]]) + ";"


def script_text(statements: Iterable[str]) -> str:
    """A `-f` script of these statements."""
    return "".join(s + ";\n" for s in statements)


def split_output(stdout: str, statements: Sequence[str]) -> list[str]:
    """The block printed for each statement, in order, for as many statements as were echoed.

    A block runs from after the statement's echo to the next echo, or to the final prompt / shutdown lines.
    """
    positions = []
    at = 0
    for statement in statements:
        marker = "\n" + echo(statement) + "\n"
        found = stdout.find(marker, at)
        if found < 0:
            break
        positions.append((found, found + len(marker)))
        at = found + len(marker)
    blocks = []
    for n, (_, start) in enumerate(positions):
        if n + 1 < len(positions):
            end = positions[n + 1][0]
        else:
            end = len(stdout)
            for tail in ("\n" + PROMPT + "\n" + SHUTDOWN, "\n" + SHUTDOWN):
                cut = stdout.find(tail, start - 1)
                if cut >= 0:
                    end = cut
                    break
        blocks.append(stdout[start:end])
    return blocks


def normalize_actual(block: str) -> str:
    """Our block with :data:`NORMALIZATIONS` applied."""
    text = _ANSI.sub("", block)
    text = "\n".join(line.rstrip(" ") for line in text.split("\n"))
    text = _JOB_ID.sub("Job ID:", text)
    text = _NODE_ID.sub('"id" : ', text)
    return text.rstrip("\n")


def normalize_expected(block: str) -> str:
    """The expected block as compared (only its trailing blank lines dropped)."""
    return block.rstrip("\n")


def compare(expected: str, actual: str) -> str | None:
    """None when equal after normalization, else a unified diff (expected first)."""
    want, got = normalize_expected(expected), normalize_actual(actual)
    if want == got:
        return None
    diff = difflib.unified_diff(want.split("\n"), got.split("\n"), "expected", "actual", lineterm="", n=2)
    return "\n".join(diff)


def is_error_block(block: str) -> bool:
    """Whether our client reported the statement as failed."""
    return normalize_actual(block).startswith(ERROR_HEAD) or ("\n" + ERROR_HEAD) in block


# ---- replaying a file in chunks -----------------------------------------------------------------------------------


@dataclass
class Replay:
    """The session state to rebuild when a file must restart after our client stopped at a failed statement.

    The real runner goes on after an error in the same session; ours exits. The next chunk starts a new session
    whose script first re-runs, silently as far as the comparison goes, every earlier statement that changed the
    session and succeeded: SET/RESET, CREATE/DROP/ALTER/USE (catalogs, databases, tables, views, functions),
    LOAD/UNLOAD, ADD/REMOVE JAR, and an open statement set (BEGIN and its INSERTs). Not re-run: INSERTs outside a
    statement set, a statement set that was submitted, and CREATE TABLE ... AS SELECT (their jobs' data is already
    in the sink; running them again would duplicate it).
    """

    statements: list[str] = field(default_factory=list)
    _set_start: int | None = None

    def record(self, statement: str, succeeded: bool) -> None:
        """Take note of a statement our client ran (in order)."""
        if not succeeded:
            return
        words = " ".join(_strip_line_comments(statement).upper().split())
        if words.startswith("BEGIN STATEMENT SET"):
            self._set_start = len(self.statements)
            self.statements.append(statement)
        elif words == "END" and self._set_start is not None:
            del self.statements[self._set_start:]
            self._set_start = None
        elif self._set_start is not None and words.startswith("INSERT"):
            self.statements.append(statement)
        elif words.startswith(_REPLAYED_HEADS) and not _CTAS.match(words):
            self.statements.append(statement)


def _strip_line_comments(statement: str) -> str:
    return "\n".join(line for line in statement.split("\n") if not line.lstrip().startswith("--"))
