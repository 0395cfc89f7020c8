"""`flinklab show LAB` and `flinklab show plan`: pictures in the terminal, or as SVG files.

`show plan FILE` draws any compiled plan. `show LAB` is whatever the lab draws (`Lab.pictures.show`, e.g. the
windows lab's timeline); the group finds those commands by asking the labs when it is asked for them, so no lab is
named here and `flinklab --help` loads none.
"""
# typer reads these annotations at runtime, and Python 3.9 cannot evaluate `X | None` there.
# ruff: noqa: UP045

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperGroup

from flinklab.cli.app import app, command, console, settings_from

SVG_HELP = "Also write the picture as a standalone SVG file."


class ShowGroup(TyperGroup):
    """The `show` group: its own commands (plan), then one command per lab that can draw (built when asked)."""

    def list_commands(self, ctx: Any) -> list[str]:
        from flinklab.course.registry import load_labs

        labs, _ = load_labs()
        return [*super().list_commands(ctx), *(lab.name for lab in labs if lab.pictures.show is not None)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        found = super().get_command(ctx, cmd_name)
        if found is not None:
            return found
        from flinklab.course.registry import available_labs, get_lab

        if cmd_name not in available_labs():
            return None
        lab = get_lab(cmd_name)  # a broken plug-in: a FlinklabError, one line from app.run
        return _lab_command(lab.name, lab.pictures.show_help, lab.pictures.step_help) if lab.pictures.show else None


show_app = typer.Typer(cls=ShowGroup, help="Pictures: what a lab draws (e.g. `show windows`), a compiled plan's "
                       "state.", no_args_is_help=True)
app.add_typer(show_app, name="show")


def show_lab(
    ctx: typer.Context,
    step: Annotated[Optional[str], typer.Argument(help="The step to draw (default: the lab's overview).")] = None,
    time_from: Annotated[Optional[str], typer.Option("--from", metavar="HH:MM", help="Start of the range.")] = None,
    time_to: Annotated[Optional[str], typer.Option("--to", metavar="HH:MM", help="End of the range.")] = None,
    svg: Annotated[Optional[Path], typer.Option("--svg", metavar="FILE", help=SVG_HELP + " Default: all data.")
                   ] = None,
    workspace: Annotated[Optional[Path], typer.Option("--workspace", help="Workspace root (default ~/flink).")
                         ] = None,
    data_dir: Annotated[Optional[Path], typer.Option("--data-dir", help="Where the lab's CSVs are.")] = None,
) -> None:
    """What the lab draws."""
    from flinklab.course.registry import get_lab

    settings = settings_from(workspace_root=workspace, data_dir=data_dir)
    draw: Any = get_lab(ctx.info_name or "").pictures.show
    renderable, written = draw(settings, step, time_from, time_to, console.width, svg)
    console.print(renderable)
    if written is not None:
        console.print(f"Wrote {written}", soft_wrap=True)


def _lab_command(name: str, help_text: str, step_help: str) -> Any:
    """`flinklab show NAME [STEP] [--from] [--to] [--svg] [--workspace] [--data-dir]` for the lab `name`, its help
    texts the lab's (typer reads the annotations above, which cannot name a lab: they are patched in here)."""
    one = typer.Typer()
    command(name, target=one, help=help_text or None)(show_lab)
    built = typer.main.get_command(one)
    built.name = name
    for param in built.params:
        if param.name == "step" and step_help:
            param.help = step_help  # type: ignore[attr-defined]
    return built


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
