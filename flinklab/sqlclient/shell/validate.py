"""`\\validate <statement>;` (or Alt-V on the buffer): what a statement would do, asked of the planner, without
running it. Flink's client has nothing like it; Confluent's `flink shell` and Ververica's editor validate a
statement before it is deployed.

The planner's `EXPLAIN CHANGELOG_MODE` plan says what the statement emits (the changelog mode of the plan's top
node: `I` only is insert-only; `UB`, `UA`, `D` are updates and deletes) and which stateful operators it runs. Whether
it ends depends on its sources, which the plan names but does not qualify: each scanned table's `WITH` options
(`SHOW CREATE TABLE`) say whether its connector reads a bounded input. All of it fits on one screen.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

VALIDATE_COMMAND = "\\validate"
#: the statement kinds (sqlclient.kinds) EXPLAIN takes
EXPLAINABLE = ("query", "insert", "statement_set")

_PHYSICAL = "== Optimized Physical Plan =="
_NODE = re.compile(r"^[\s:|+-]*([A-Za-z][A-Za-z0-9]*)\((.*)\)\s*$")
_CHANGELOG = re.compile(r"changelogMode=\[([^\]]*)\]")
_SCAN = re.compile(r"table=\[\[([^\]]*)\]")
_OPTION = re.compile(r"'((?:[^']|'')*)'\s*=\s*'((?:[^']|'')*)'")

#: stateful operators of Flink's streaming physical plan and what each keeps
STATE: dict[str, str] = {
    "GroupAggregate": "one accumulator per group key, kept until table.exec.state.ttl expires it (never by default)",
    "GlobalGroupAggregate": "one accumulator per group key, kept until table.exec.state.ttl expires it",
    "IncrementalGroupAggregate": "one accumulator per group key, kept until table.exec.state.ttl expires it",
    "Join": "every row of both inputs (per join key), kept until table.exec.state.ttl expires it",
    "IntervalJoin": "the rows of both inputs inside the time interval, dropped as the watermark passes it",
    "TemporalJoin": "the versions of the versioned table, dropped as the watermark passes them",
    "WindowJoin": "the rows of both inputs in open windows, dropped when a window closes",
    "WindowAggregate": "one accumulator per window and key, dropped when the window fires",
    "GlobalWindowAggregate": "one accumulator per window and key, dropped when the window fires",
    "GroupWindowAggregate": "one accumulator per window and key, dropped when the window fires",
    "WindowRank": "the top rows per window and key, dropped when the window fires",
    "WindowDeduplicate": "one row per window and key, dropped when the window fires",
    "Deduplicate": "one row per key, kept until table.exec.state.ttl expires it",
    "Rank": "the top rows per partition key, kept until table.exec.state.ttl expires them",
    "OverAggregate": "the rows inside each partition's OVER window",
    "ChangelogNormalize": "the last row per primary key",
    "Match": "partial pattern matches per partition key",
    "SinkMaterializer": "the rows per sink key, to order the changes it writes",
    "Limit": "a row count",
    "SortLimit": "the top rows",
    "Sort": "every row, to sort them",
}
_OPS = {"I": "+I", "UB": "-U", "UA": "+U", "D": "-D"}


def requested(text: str) -> str | None:
    """The statement after `\\validate`, or None when `text` is no validate request."""
    stripped = text.lstrip()
    if not stripped.lower().startswith(VALIDATE_COMMAND):
        return None
    return stripped[len(VALIDATE_COMMAND):].strip()


def explain_statement(statement: str, kind: str) -> str:
    """The EXPLAIN that validates `statement` of `kind` (a statement set is explained without its EXECUTE)."""
    body = statement.strip().rstrip(";").strip()
    if kind == "statement_set":
        body = re.sub(r"^EXECUTE\s+", "", body, flags=re.IGNORECASE)
    return f"EXPLAIN CHANGELOG_MODE {body}"


def physical_plan(explain: str) -> list[str]:
    """The lines of the plan's `Optimized Physical Plan` section."""
    lines: list[str] = []
    inside = False
    for line in explain.splitlines():
        if line.startswith("== "):
            inside = line.strip() == _PHYSICAL
            continue
        if inside and line.strip():
            lines.append(line)
    return lines


def scanned_tables(plan: Sequence[str]) -> list[str]:
    """The tables the plan reads, as `catalog`.`database`.`table` (each once, in plan order)."""
    found: list[str] = []
    for line in plan:
        node = _NODE.match(line)
        if node and node.group(1) == "TableSourceScan":
            scan = _SCAN.search(node.group(2))
            if scan:
                name = ".".join(f"`{part.strip()}`" for part in scan.group(1).split(","))
                if name not in found:
                    found.append(name)
    return found


def with_options(ddl: str) -> dict[str, str]:
    """The `WITH ('k' = 'v', ...)` options of a `SHOW CREATE TABLE` text."""
    head, _, options = ddl.rpartition("WITH (")
    return {k.replace("''", "'"): v.replace("''", "'") for k, v in _OPTION.findall(options if head else "")}


def source_bounded(options: Mapping[str, str]) -> bool | None:
    """Whether a table with these options is read to an end (None: its connector is not known here)."""
    connector = options.get("connector", "")
    if connector == "datagen":
        return "number-of-rows" in options
    if connector == "filesystem":
        return "source.monitor-interval" not in options
    if connector in ("kafka", "upsert-kafka"):
        return options.get("scan.bounded.mode", "unbounded") != "unbounded"
    if connector in ("blackhole", "print"):
        return True
    return None


@dataclass
class Verdict:
    """What the statement would do."""

    bounded: bool | None  # None: a source's connector says nothing we know
    sources: list[tuple[str, str, bool | None]] = field(default_factory=list)  # (table, connector, bounded)
    ops: list[str] = field(default_factory=list)  # the changes the top node emits (+I, -U, +U, -D)
    state: list[tuple[str, str]] = field(default_factory=list)  # (operator, what it keeps)
    batch: bool = False

    @property
    def updating(self) -> bool:
        return any(op != "+I" for op in self.ops)


def verdict(explain: str, sources: Mapping[str, Mapping[str, str]], *, batch: bool = False) -> Verdict:
    """The verdict on a statement from its EXPLAIN CHANGELOG_MODE text and its scanned tables' options."""
    plan = physical_plan(explain)
    listed = [(name, str(options.get("connector", "?")), source_bounded(options)) for name, options in
              sources.items()]
    known = [b for _, _, b in listed]
    bounded: bool | None = True if batch or all(known) else (False if False in known else None)
    top = next((m for m in map(_NODE.match, plan) if m and m.group(1) != "Sink"), None)
    mode = _CHANGELOG.search(top.group(2)) if top else None
    ops = [_OPS.get(op.strip(), op.strip()) for op in mode.group(1).split(",")] if mode else ["+I"]
    state: list[tuple[str, str]] = []
    for line in plan:
        node = _NODE.match(line)
        if node and node.group(1) in STATE and not batch:
            state.append((node.group(1), STATE[node.group(1)]))
    return Verdict(bounded, listed, ops, state, batch)


def render(result: Verdict) -> list[str]:
    """The verdict as the shell prints it: a few lines, one screen."""
    lines = ["[INFO] Validated, not run: the planner accepts the statement."]
    if result.batch:
        lines.append("  Bounded:  yes (batch mode reads every source to its end)")
    else:
        word = {True: "yes: it ends", False: "no: it runs until cancelled", None: "unknown"}[result.bounded]
        lines.append(f"  Bounded:  {word}")
    for name, connector, bounded in result.sources:
        said = {True: "bounded", False: "unbounded", None: "not known"}[bounded]
        lines.append(f"            {name.rsplit('.', 1)[-1].strip('`')} ({connector}): {said}")
    if result.updating:
        lines.append(f"  Changes:  updating ({', '.join(result.ops)}): earlier rows are retracted or replaced")
    else:
        lines.append("  Changes:  insert-only (+I): every row is final")
    if result.batch:
        lines.append("  State:    none between runs (batch operators sort and hash in managed memory)")
    elif not result.state:
        lines.append("  State:    none (each row is processed on its own)")
    else:
        lines.append("  State:")
        lines += [f"    {operator}: {kept}" for operator, kept in result.state]
    return lines
