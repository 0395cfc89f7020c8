"""`flinklab show plan`: the joins lab's three captured plans as graphs whose state tables sit on exactly the nodes
that keep state in the plan JSON (regular join: both sides; interval join: none; temporal join: its deduplicate)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.pictures_tools import JOINS, SVG_NS, svg_elements
from rich.console import Console
from typer.testing import CliRunner

from flinklab.cli.app import app
from flinklab.errors import UsageError
from flinklab.pictures.plan import load_plan_graph, plan_tree
from flinklab.pictures.plan_svg import plan_svg

SOLUTION = JOINS / "solution"
PLANS = ("regular", "interval", "temporal")


def _json_state(path: Path) -> dict[int, list[tuple[str, str]]]:
    """Straight from the file: node id -> its state entries (name, ttl), for nodes that have any."""
    nodes = json.loads(path.read_text(encoding="utf-8"))["nodes"]
    return {n["id"]: [(s["name"], s["ttl"]) for s in n["state"]] for n in nodes if n.get("state")}


def _svg_state(text: str) -> dict[int, list[tuple[str, str]]]:
    out = {}
    for group in svg_elements(text, "g"):
        if group.get("data-node-id") is None:
            continue
        states = [(r.get("data-state"), r.get("data-ttl")) for r in group.iter(f"{SVG_NS}rect") if r.get("data-state")]
        assert (group.get("data-stateful") == "true") == bool(states)
        if states:
            out[int(group.get("data-node-id"))] = states
    return out


def test_the_captured_plans_keep_state_where_the_lab_says():
    # the facts the lab teaches, read from the captured JSON itself
    types = {which: {n["id"]: n["type"] for n in json.loads((SOLUTION / f"{which}-plan.json").read_text())["nodes"]}
             for which in PLANS}
    state = {which: _json_state(SOLUTION / f"{which}-plan.json") for which in PLANS}
    assert [(types["regular"][i], s) for i, s in state["regular"].items()] == [
        ("stream-exec-join_1", [("leftState", "0 ms"), ("rightState", "0 ms")])]
    assert state["interval"] == {}
    assert [(types["temporal"][i], s) for i, s in state["temporal"].items()] == [
        ("stream-exec-deduplicate_1", [("deduplicateState", "0 ms")])]


@pytest.mark.parametrize("which", PLANS)
def test_svg_marks_state_tables_on_exactly_the_stateful_nodes(tmp_path: Path, which: str):
    path = SOLUTION / f"{which}-plan.json"
    out = tmp_path / f"{which}.svg"
    result = CliRunner().invoke(app, ["show", "plan", str(path), "--svg", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    raw_nodes = json.loads(path.read_text(encoding="utf-8"))["nodes"]
    groups = [g for g in svg_elements(text, "g") if g.get("data-node-id")]
    assert sorted(int(g.get("data-node-id")) for g in groups) == sorted(n["id"] for n in raw_nodes)
    assert _svg_state(text) == _json_state(path)


@pytest.mark.parametrize("which", PLANS)
def test_tree_shows_state_under_the_stateful_nodes_only(which: str):
    path = SOLUTION / f"{which}-plan.json"
    console = Console(width=120, record=True)
    console.print(plan_tree(load_plan_graph(path)))
    lines = console.export_text().splitlines()
    state_lines = [line.strip(" │├└─") for line in lines if line.strip(" │").startswith("state ")]
    expected = _json_state(path)
    assert len(state_lines) == sum(len(v) for v in expected.values())
    for states in expected.values():
        for name, ttl in states:
            assert f"state {name} (TTL {ttl}, kept forever)" in state_lines
    assert f"{len(expected)} with state tables" in lines[0]


def test_keys_and_changelog_modes_are_named():
    regular = load_plan_graph(SOLUTION / "regular-plan.json")
    join = next(n for n in regular.nodes.values() if n.kind == "join")
    assert join.keys == "inner join on user_id = user_id"
    assert [n.changelog for n in regular.sinks()] == ["in: INSERT"]
    assert join.changelog == "out: INSERT"  # carried back from the sink through the calc
    temporal = load_plan_graph(SOLUTION / "temporal-plan.json")
    dedup = next(n for n in temporal.nodes.values() if n.kind == "deduplicate")
    assert dedup.keys == "dedup key currency" and dedup.changelog == "out: INSERT, UPDATE_AFTER"
    interval = load_plan_graph(SOLUTION / "interval-plan.json")
    join = next(n for n in interval.nodes.values() if n.kind == "interval-join")
    assert join.keys == "inner join on order_id = order_id; left time - right time in [-2 h, 0]"
    assert {n.keys for n in interval.nodes.values() if n.kind == "table-source-scan"} == {
        "table orders", "table shipments"}


def test_a_wrong_query_plan_is_drawn_as_it_is():
    path = JOINS / "mistakes" / "plans_wrong_query" / "interval-plan.json"
    graph = load_plan_graph(path)
    assert {n.kind for n in graph.nodes.values()} >= {"join"} and "interval-join" not in {
        n.kind for n in graph.nodes.values()}
    assert _svg_state(plan_svg(graph).to_string()) == _json_state(path)


@pytest.mark.parametrize("content, message", [
    (None, "does not exist"),
    ("not json", "is not valid JSON"),
    ('{"flinkVersion": "2.2"}', "is JSON but not a compiled plan"),
])
def test_bad_plan_file_is_one_line_and_exit_2(tmp_path: Path, content: str | None, message: str):
    path = tmp_path / "p.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    result = CliRunner().invoke(app, ["show", "plan", str(path)])
    assert result.exit_code == 2 and message in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    with pytest.raises(UsageError):
        load_plan_graph(path)


def test_a_node_compile_plan_would_not_write_is_one_line(tmp_path: Path):
    plan = json.loads((SOLUTION / "regular-plan.json").read_text(encoding="utf-8"))
    join = next(n for n in plan["nodes"] if n["type"].startswith("stream-exec-join"))
    join["state"] = [{"index": "first", "ttl": "0 ms", "name": "leftState"}]
    path = tmp_path / "regular-plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    result = CliRunner().invoke(app, ["show", "plan", str(path)])
    assert result.exit_code == 2 and "a node or edge is not as COMPILE PLAN writes it" in result.output
    assert len(result.output.strip().splitlines()) == 1
