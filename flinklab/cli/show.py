"""`flinklab show windows` and `flinklab show plan`: the lab's pictures in the terminal, or as SVG files.

Thin: parse options, call the library (flinklab.pictures), render.
"""
# typer reads these annotations at runtime, and Python 3.9 cannot evaluate `X | None` there.
# ruff: noqa: UP045

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from flinklab.cli.app import app, command, console, settings_from

show_app = typer.Typer(help="Pictures: the windows lab's timeline, a compiled plan's state.", no_args_is_help=True)
app.add_typer(show_app, name="show")

#: The terminal shows this many minutes of event time unless --from/--to say otherwise (fits 80 columns).
TERMINAL_MINUTES = 30
SVG_HELP = "Also write the picture as a standalone SVG file."


@command("windows", target=show_app)
def show_windows(
    step: Annotated[Optional[str], typer.Argument(
        help="tumble, tumble_agg, hop, cumulate or session (default: the four window kinds).")] = None,
    time_from: Annotated[Optional[str], typer.Option("--from", metavar="HH:MM", help="Start of the range.")] = None,
    time_to: Annotated[Optional[str], typer.Option("--to", metavar="HH:MM", help="End of the range.")] = None,
    svg: Annotated[Optional[Path], typer.Option("--svg", metavar="FILE", help=SVG_HELP + " Default: all data.")
                   ] = None,
    workspace: Annotated[Optional[Path], typer.Option("--workspace", help="Workspace root (default ~/flink).")
                         ] = None,
    data_dir: Annotated[Optional[Path], typer.Option("--data-dir", help="Where windows_orders.csv is.")] = None,
) -> None:
    """The windows lab's orders and windows on an event-time axis; your saved output against the expected one."""
    # the pictures load when a command runs: `flinklab --help` needs none of them
    from flinklab.labs.windows import reference as ref
    from flinklab.pictures.svg import write_svg
    from flinklab.pictures.windows import windows_figure_for
    from flinklab.pictures.windows_svg import windows_svg
    from flinklab.pictures.windows_term import windows_renderable

    settings = settings_from(workspace_root=workspace, data_dir=data_dir)
    figure = windows_figure_for(settings, step, time_from, time_to, default_span=TERMINAL_MINUTES * ref.MINUTE)
    console.print(windows_renderable(figure, console.width))
    if svg is not None:
        whole = windows_figure_for(settings, step, time_from, time_to)
        path = write_svg(windows_svg(whole), svg)
        console.print(f"Wrote {path}", soft_wrap=True)


@command("plan", target=show_app)
def show_plan(
    plan_file: Annotated[Path, typer.Argument(metavar="FILE.json", help="A plan written by COMPILE PLAN.")],
    svg: Annotated[Optional[Path], typer.Option("--svg", metavar="FILE", help=SVG_HELP)] = None,
) -> None:
    """A compiled plan as a tree of exec nodes with their keys, changelog modes and state tables."""
    from flinklab.pictures.plan import load_plan_graph, plan_tree
    from flinklab.pictures.plan_svg import plan_svg
    from flinklab.pictures.svg import write_svg

    graph = load_plan_graph(plan_file)
    console.print(plan_tree(graph))
    if svg is not None:
        console.print(f"Wrote {write_svg(plan_svg(graph), svg)}", soft_wrap=True)
