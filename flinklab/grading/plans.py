"""Read a compiled plan (`COMPILE PLAN '...' FOR INSERT ...`) and answer what checks ask of it.

Node types look like `stream-exec-join_1`; only nodes whose state is governed by TTL carry a `state` list of
`{"index", "ttl", "name"}` (regular join, deduplicate, group aggregate). Node ids differ between sessions, so
never compare raw plan files.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flinklab.errors import FlinklabError
from flinklab.grading.files import MAX_JSON_BYTES, FileReadError, MissingFileError, read_text


class PlanError(FlinklabError):
    """The plan file is missing or is not a compiled plan; a check turns this into a failed check."""


@dataclass(frozen=True)
class StateEntry:
    index: int
    ttl: str  # e.g. "0 ms", "1 h"
    name: str  # e.g. "leftState"


@dataclass
class Plan:
    path: Path
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]] = field(default_factory=list)
    flink_version: str = ""

    def nodes_of_type(self, substring: str) -> list[dict[str, Any]]:
        """Nodes whose type contains `substring` (e.g. "interval-join" or "stream-exec-join_")."""
        return [node for node in self.nodes if substring in str(node.get("type", ""))]

    def stateful_nodes(self) -> list[dict[str, Any]]:
        return [node for node in self.nodes if node.get("state")]


class MalformedPlanError(PlanError, ValueError):
    """A node is not as COMPILE PLAN writes it (a ValueError too, for callers that catch the plain kinds)."""


def state_entries(node: dict[str, Any]) -> list[StateEntry]:
    """The node's `state` list ([] when it has none); MalformedPlanError when it is not a list of
    `{"index": int, ...}` objects."""
    raw_entries = node.get("state") or []
    if not isinstance(raw_entries, list):
        raise MalformedPlanError(f"the state of node {node.get('id', '?')} is not a list.",
                                 "Compile the plan again (COMPILE PLAN writes it; do not edit it by hand).")
    entries = []
    for raw in raw_entries:
        index = raw.get("index", -1) if isinstance(raw, dict) else None
        if not isinstance(index, int) or isinstance(index, bool):
            raise MalformedPlanError(f"a state entry of node {node.get('id', '?')} is not as COMPILE PLAN writes "
                                     "it.", "Compile the plan again (do not edit it by hand).")
        entries.append(StateEntry(index=index, ttl=str(raw.get("ttl", "")), name=str(raw.get("name", ""))))
    return entries


def dig(node: Any, *keys: str) -> Any:
    """`node[k1][k2]...`, or None where a level is missing or not an object (a plan edited by hand)."""
    for key in keys:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def load_plan(path: Path | str) -> Plan:
    """Load a plan JSON; PlanError says what is wrong with the file."""
    path = Path(path)
    try:
        text = read_text(path, limit=MAX_JSON_BYTES, label=path.name)
    except MissingFileError:
        raise PlanError(
            f"{path.name} does not exist.", "Run the step that compiles it (COMPILE PLAN ...)."
        ) from None
    except FileReadError as exc:
        raise PlanError(exc.message, exc.hint or "Delete it and compile the plan again.") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise PlanError(f"{path.name} is not valid JSON ({str(exc)[:200]}).", "Compile the plan again.") from None
    except RecursionError:
        raise PlanError(f"{path.name} is nested too deeply to be a compiled plan.", "Compile the plan again.") from None
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), list):
        raise PlanError(
            f"{path.name} is JSON but not a compiled plan (no `nodes` list).",
            "Write it with COMPILE PLAN '<path>' FOR INSERT INTO ...",
        )
    nodes = [node for node in data["nodes"] if isinstance(node, dict)]
    edges = [edge for edge in data.get("edges") or [] if isinstance(edge, dict)]
    return Plan(path=path, nodes=nodes, edges=edges, flink_version=str(data.get("flinkVersion", "")))
