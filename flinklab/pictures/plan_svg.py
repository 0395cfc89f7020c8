"""A plan graph as standalone SVG: sources at the top, the sink at the bottom, one box per exec node (type, keys,
changelog mode) and, inside the nodes that keep TTL-governed state, one yellow row per state table (name, TTL).

Readable by a program: each node is a `<g data-node-id data-node-type data-stateful="true|false">`; each state
table a `<rect data-state="leftState" data-ttl="0 ms">` inside its node's group.
"""

from __future__ import annotations

from flinklab.pictures.plan import PlanGraph, PlanNode, state_text
from flinklab.pictures.svg import CHAR_PX, Svg

BOX_W = 320.0
GAP_X = 36.0
GAP_Y = 34.0
LINE_H = 16.0
STATE_H = 18.0
MARGIN = 16.0
TOP = 48.0
MAX_CHARS = int((BOX_W - 16) / CHAR_PX)
STATE_NOTE_LINES = (
    "Yellow rows: the node's state tables as the plan lists them (TTL-governed state; TTL 0 ms = kept forever).",
    "Interval and temporal joins and window operators keep rows too, cleaned by watermarks: the plan lists none.",
)


def _clip(text: str, limit: int = MAX_CHARS) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _lines(node: PlanNode) -> list[tuple[str, str]]:
    lines = [(f"{node.kind}  #{node.id}", "title")]
    if node.keys:
        lines.append((_clip(node.keys), "keys"))
    if node.changelog:
        lines.append((_clip(f"changelog {node.changelog}"), "changelog"))
    return lines


def _height(node: PlanNode) -> float:
    return 8 + LINE_H * len(_lines(node)) + STATE_H * len(node.state) + (4 if node.state else 0)


def _placement(graph: PlanGraph) -> tuple[dict[int, int], dict[int, int]]:
    """Columns (a node's first input stays in its column, other inputs open new ones) and rows (depth from the
    sink, so that a short branch sits next to where it joins)."""
    column: dict[int, int] = {}
    depth: dict[int, int] = {}
    next_column = [0]

    def visit(node_id: int, col: int, d: int) -> None:
        depth[node_id] = max(depth.get(node_id, 0), d)
        if node_id in column:
            return
        column[node_id] = col
        for i, source in enumerate(graph.nodes[node_id].inputs):
            if source not in graph.nodes:
                continue
            if i == 0:
                visit(source, col, d + 1)
            else:
                next_column[0] += 1
                visit(source, next_column[0], d + 1)

    for sink in graph.sinks():
        visit(sink.id, next_column[0], 0)
        next_column[0] += 1
    for node_id in graph.nodes:  # a cycle or a stray node: put it somewhere visible
        if node_id not in column:
            visit(node_id, next_column[0], 0)
            next_column[0] += 1
    deepest = max(depth.values(), default=0)
    return column, {n: deepest - d for n, d in depth.items()}


def plan_svg(graph: PlanGraph) -> Svg:
    """The plan graph as an Svg."""
    column, row = _placement(graph)
    rows = max(row.values(), default=0) + 1
    row_h = [max((_height(graph.nodes[n]) for n in graph.nodes if row[n] == r), default=0) for r in range(rows)]
    row_y = [TOP + sum(row_h[:r]) + GAP_Y * r for r in range(rows)]
    columns = max(column.values(), default=0) + 1
    width = 2 * MARGIN + columns * BOX_W + (columns - 1) * GAP_X
    height = row_y[-1] + row_h[-1] + 56 if rows else TOP + 40
    svg = Svg(width, height, title=graph.path.name)
    defs = svg.add("defs")
    marker = svg.add("marker", defs, id="arrow", viewBox="0 0 10 10", refX="9", refY="5", markerWidth="7",
                     markerHeight="7", orient="auto")
    svg.add("path", marker, d="M0,0 L10,5 L0,10 z", fill="#888888")
    stateful = len(graph.stateful())
    svg.text(MARGIN, 20, f"{graph.path.name}: {len(graph.nodes)} exec nodes, {stateful} with state tables",
             font_weight="bold", font_size=13)
    svg.text(MARGIN, 36, f"Flink {graph.flink_version or '?'} compiled plan: sources at the top, sink at the bottom",
             fill="#555555")

    def box(node_id: int) -> tuple[float, float, float]:
        x = MARGIN + column[node_id] * (BOX_W + GAP_X)
        return x, row_y[row[node_id]], _height(graph.nodes[node_id])

    edges = svg.group(stroke="#888888", stroke_width="1.5", fill="none")
    for node in graph.nodes.values():
        tx, ty, _ = box(node.id)
        for i, source in enumerate(node.inputs):
            if source in graph.nodes:
                sx, sy, sh = box(source)
                end_x = tx + BOX_W / 2 + (i - (len(node.inputs) - 1) / 2) * 60
                svg.add("path", edges, d=f"M{sx + BOX_W / 2:.1f},{sy + sh:.1f} L{end_x:.1f},{ty - 2:.1f}",
                        marker_end="url(#arrow)")
    for node in graph.nodes.values():
        x, y, h = box(node.id)
        group = svg.group(class_="node", data_node_id=node.id, data_node_type=node.type,
                          data_stateful="true" if node.stateful else "false")
        rect = svg.add("rect", group, x=x, y=y, width=BOX_W, height=h, rx="5",
                       fill="#fff8e1" if node.stateful else "#f7f9fc",
                       stroke="#e08a00" if node.stateful else "#8aa0b8", stroke_width="2" if node.stateful else "1")
        svg.tooltip(rect, node.description or node.type)
        ly = y + 4
        for text, role in _lines(node):
            ly += LINE_H
            svg.text(x + 8, ly - 4, text, group, font_weight="bold" if role == "title" else None,
                     fill={"title": "#111111", "keys": "#1f5f99", "changelog": "#2c7a2c"}[role])
        for entry in node.state:
            state = svg.add("rect", group, x=x + 6, y=ly + 2, width=BOX_W - 12, height=STATE_H - 2, rx="3",
                            fill="#ffd54f", data_state=entry.name, data_ttl=entry.ttl)
            svg.tooltip(state, f"state table {entry.name}, TTL {entry.ttl}")
            svg.text(x + 12, ly + 14, _clip(state_text(entry), MAX_CHARS - 2), group, fill="#5d4300")
            ly += STATE_H
    for i, line in enumerate(STATE_NOTE_LINES):
        svg.text(MARGIN, height - 30 + 14 * i, line, fill="#555555", font_size=10)
    return svg
