"""A compiled plan (`COMPILE PLAN ... FOR INSERT ...`) as a graph of its exec nodes: type, keys (join, group,
dedup, hash-exchange keys, named by the input's fields), changelog mode and the state tables the plan lists.

Changelog modes: a compiled plan states few of them (the sink's `inputChangelogMode`, a deduplicate's
`outputInsertOnly`); this model shows those and carries the sink's input mode back through the nodes that pass rows
through unchanged (calc, exchange, watermark assigner), and says nothing where the plan says nothing.

State: only nodes whose state is governed by TTL carry `state` entries (regular join, deduplicate, group
aggregate); interval and temporal joins and window operators also keep rows, but clean them with watermarks and the
plan lists no table for them (flink-facts: plans and state).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.text import Text
from rich.tree import Tree

from flinklab.errors import UsageError
from flinklab.grading.plans import Plan, PlanError, StateEntry, load_plan, state_entries

PASS_THROUGH = ("calc", "exchange", "watermark-assigner", "sink")


@dataclass
class PlanNode:
    """One exec node: its type, what it is keyed by, its changelog mode where known, its state tables, inputs."""

    id: int
    type: str  # e.g. "stream-exec-join_1"
    description: str
    keys: str = ""
    changelog: str = ""
    state: list[StateEntry] = field(default_factory=list)
    inputs: list[int] = field(default_factory=list)

    @property
    def kind(self) -> str:
        """The type without prefix and version: `join`, `interval-join`, `deduplicate`."""
        return re.sub(r"_\d+$", "", self.type.replace("stream-exec-", "").replace("batch-exec-", ""))

    @property
    def stateful(self) -> bool:
        return bool(self.state)


@dataclass
class PlanGraph:
    """A plan's exec nodes by id; edges are the nodes' `inputs`."""

    path: Path
    flink_version: str
    nodes: dict[int, PlanNode]

    def sinks(self) -> list[PlanNode]:
        consumed = {i for node in self.nodes.values() for i in node.inputs}
        return [node for node in self.nodes.values() if node.id not in consumed]

    def stateful(self) -> list[PlanNode]:
        return [node for node in self.nodes.values() if node.stateful]


def field_names(node: dict[str, Any]) -> list[str]:
    """The names of a node's output fields (its outputType is a `ROW<...>` string or a `{"fields": [...]}`)."""
    output = node.get("outputType")
    if isinstance(output, dict):
        return [str(f.get("name", "")) for f in output.get("fields") or [] if isinstance(f, dict)]
    if isinstance(output, str):
        return re.findall(r"`([^`]+)`\s", output)
    return []


def _names(indices: Any, fields: list[str]) -> list[str]:
    if not isinstance(indices, list):
        return []
    return [fields[i] if isinstance(i, int) and 0 <= i < len(fields) else f"${i}" for i in indices]


def _duration(ms: Any) -> str:
    if not isinstance(ms, (int, float)):
        return "?"
    if ms == 0:
        return "0"
    sign = "-" if ms < 0 else "+"
    ms = abs(int(ms))
    for unit, size in (("h", 3_600_000), ("min", 60_000), ("s", 1000)):
        if ms and ms % size == 0:
            return f"{sign}{ms // size} {unit}"
    return f"{sign}{ms} ms"


def _table(raw: dict[str, Any]) -> str:
    for key in ("scanTableSource", "dynamicTableSink", "lookupTableSource"):
        table = (raw.get(key) or {}).get("table") if isinstance(raw.get(key), dict) else None
        if isinstance(table, dict) and isinstance(table.get("identifier"), str):
            return "table " + table["identifier"].replace("`", "").split(".")[-1]
    return ""


def _keys(raw: dict[str, Any], inputs: list[list[str]]) -> str:
    if (table := _table(raw)):
        return table
    left = inputs[0] if inputs else []
    right = inputs[1] if len(inputs) > 1 else []
    spec = raw.get("joinSpec") or (raw.get("intervalJoinSpec") or {}).get("joinSpec")
    if isinstance(spec, dict):
        pairs = zip(_names(spec.get("leftKeys"), left), _names(spec.get("rightKeys"), right), strict=False)
        text = f"{spec.get('joinType', '').lower()} join on " + ", ".join(f"{a} = {b}" for a, b in pairs)
        bounds = (raw.get("intervalJoinSpec") or {}).get("windowBounds")
        if isinstance(bounds, dict):
            text += (f"; left time - right time in [{_duration(bounds.get('leftLowerBound'))}, "
                     f"{_duration(bounds.get('leftUpperBound'))}]")
        return text
    for key, label in (("uniqueKeys", "dedup key"), ("grouping", "group by")):
        if isinstance(raw.get(key), list):
            return f"{label} " + ", ".join(_names(raw[key], left))
    partition = raw.get("partitionSpec")
    if isinstance(partition, dict):
        return "partition by " + ", ".join(_names(partition.get("fields"), left))
    for prop in raw.get("inputProperties") or []:
        dist = prop.get("requiredDistribution") if isinstance(prop, dict) else None
        if isinstance(dist, dict) and dist.get("type") == "HASH":
            return "hash by " + ", ".join(_names(dist.get("keys"), left))
    return ""


def _stated_changelog(raw: dict[str, Any]) -> str:
    modes = raw.get("inputChangelogMode")
    if isinstance(modes, list):
        return "in: " + ", ".join(str(m) for m in modes)
    if raw.get("outputInsertOnly") is False:
        return "out: INSERT, UPDATE_AFTER" + (", UPDATE_BEFORE" if raw.get("generateUpdateBefore") else "")
    if raw.get("outputInsertOnly") is True:
        return "out: INSERT"
    return ""


def _carry_changelog(nodes: dict[int, PlanNode], raw: dict[int, dict[str, Any]]) -> None:
    """The sink's input mode is the output mode of the nodes before it that pass rows through unchanged."""
    def mark(node_id: int, mode: str) -> None:
        node = nodes.get(node_id)
        if node is None:
            return
        if not node.changelog:
            node.changelog = f"out: {mode}"
        if node.kind in PASS_THROUGH:
            for i in node.inputs:
                mark(i, mode)

    for node in nodes.values():
        modes = raw[node.id].get("inputChangelogMode")
        if isinstance(modes, list):
            for i in node.inputs:
                mark(i, ", ".join(str(m) for m in modes))


def plan_graph(plan: Plan) -> PlanGraph:
    """The graph of a loaded plan: inputs from its edges (in the plan's order: left first), keys named."""
    raw = {n["id"] if isinstance(n.get("id"), int) else -1 - i: n for i, n in enumerate(plan.nodes)}
    inputs: dict[int, list[int]] = {i: [] for i in raw}
    for edge in plan.edges:
        source, target = edge.get("source"), edge.get("target")
        if isinstance(source, int) and isinstance(target, int) and target in inputs and source in raw:
            inputs[target].append(source)
    nodes = {}
    for node_id, node in raw.items():
        in_fields = [field_names(raw[i]) for i in inputs[node_id]]
        nodes[node_id] = PlanNode(node_id, str(node.get("type", "?")), str(node.get("description", "")),
                                  _keys(node, in_fields), _stated_changelog(node), state_entries(node),
                                  inputs[node_id])
    _carry_changelog(nodes, raw)
    return PlanGraph(plan.path, plan.flink_version, nodes)


def load_plan_graph(path: Path) -> PlanGraph:
    """Load `path` as a plan graph; a file that is not a compiled plan is a UsageError naming it."""
    try:
        plan = load_plan(Path(path).expanduser())
    except PlanError as exc:
        raise UsageError(f"{path}: {exc.message}", exc.hint) from None
    try:
        return plan_graph(plan)
    except (ValueError, TypeError, AttributeError, KeyError) as exc:
        raise UsageError(f"{path}: a node or edge is not as COMPILE PLAN writes it ({type(exc).__name__}: {exc}).",
                         "Compile the plan again (COMPILE PLAN '<path>' FOR INSERT INTO ...).") from None


def state_text(entry: StateEntry) -> str:
    """`leftState (TTL 0 ms, kept forever)`."""
    return f"{entry.name} (TTL {entry.ttl}{', kept forever' if entry.ttl.strip() == '0 ms' else ''})"


def _label(node: PlanNode) -> Text:
    text = Text()
    text.append(node.kind, style="bold")
    text.append(f" #{node.id}", style="dim")
    if node.keys:
        text.append(f"  {node.keys}", style="cyan")
    if node.changelog:
        text.append(f"  [{node.changelog}]", style="green")
    for entry in node.state:
        text.append("\n  state ", style="bold yellow")
        text.append(state_text(entry), style="yellow")
    return text


def plan_tree(graph: PlanGraph) -> Tree:
    """The plan as a rich tree from its sink(s) back to the sources."""
    root = Tree(Text(f"{graph.path.name}: {len(graph.nodes)} exec nodes, {len(graph.stateful())} with state "
                     f"tables (Flink {graph.flink_version or '?'})", style="bold"))

    def add(parent: Tree, node: PlanNode, seen: frozenset[int]) -> None:
        branch = parent.add(_label(node))
        for i in node.inputs:
            if i in graph.nodes and i not in seen:
                add(branch, graph.nodes[i], seen | {i})

    for sink in graph.sinks():
        add(root, sink, frozenset({sink.id}))
    return root
