"""What the joins lab draws for the HTML report of `flinklab check --html`: the three compiled plans of a failed
`plans` step, state tables marked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from flinklab.lab_api import GradingContext, UsageError

if TYPE_CHECKING:  # the picture model loads with a picture: `flinklab --help` and `check` need none
    from flinklab.lab_api import Picture


def step_pictures(ctx: GradingContext, step: str) -> list[Picture]:
    """The plans' pictures for the `plans` step; none for the others."""
    from flinklab.lab_api import Picture, load_plan_graph, plan_svg
    from flinklab.labs.joins.plan_checks import PLAN_FILES

    if step != "plans":
        return []
    pictures = []
    for which, name in PLAN_FILES.items():
        try:
            graph = load_plan_graph(ctx.workspace / name)
        except UsageError as exc:
            pictures.append(Picture("plan", f"{name}: no picture", "", notes=[exc.message]))
            continue
        states = [f"{node.kind} #{node.id}: " + ", ".join(f"{e.name} (TTL {e.ttl})" for e in node.state)
                  for node in graph.stateful()]
        pictures.append(Picture("plan", f"{name}: the {which} join's plan, state tables in yellow",
                                plan_svg(graph).to_string(), states or ["no node lists a state table"],
                                lines_title="node(s) with state tables"))
    return pictures
