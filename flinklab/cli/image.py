"""`flinklab image build-offline`: the offline stand-in for the official Flink image (see cluster/image.py)."""

from __future__ import annotations

import typer
from rich.markup import escape

from flinklab.cli.app import app, command, console, settings_from

image_app = typer.Typer(help="Container images for the Docker backend.", no_args_is_help=True)
app.add_typer(image_app, name="image")


@command("build-offline", target=image_app)
def build_offline(force: bool = typer.Option(False, "--force", help="Rebuild even when the tag exists.")) -> None:
    """Build a stand-in for the official image from Debian packages and the PyPI Flink (no registry needed)."""
    from flinklab.cluster.image import build_offline_image  # not for `flinklab --help`

    settings_from()  # settings errors (a bad FLINKLAB_* value) are reported as for every command
    result = build_offline_image(force=force,
                                 progress=lambda event: console.print(f"[dim]{escape(str(event))}[/]"))
    state = "built" if result.built else "already built"
    console.print(f"{escape(result.tag)} [green]{state}[/] in {result.seconds:.1f}s")
    for step, seconds in result.timings.items():
        console.print(f"  {step}: {seconds:.1f}s")
    console.print(f"Use it with: [bold]FLINK_IMAGE={escape(result.tag)} flink-up --backend docker[/]")


_LABS = typer.Option([], "--labs", metavar="LAB", help="A lab the image grades (repeat; default: all).")


@command("build-grader", target=image_app)
def build_grader(
    labs: list[str] = _LABS,
    tag: str = typer.Option("", "--tag", metavar="TAG", help="Also tag the image TAG (e.g. myschool/flink-grader:1)."),
    force: bool = typer.Option(False, "--force", help="Rebuild even when the image exists."),
) -> None:
    """Build the grader image offline (the stand-in's base, Flink, flinklab, the labs): docs/teaching.md."""
    from flinklab.cluster.grader_image import build_grader_image  # not for `flinklab --help`

    settings_from()
    result = build_grader_image(labs or None, tag or None, force=force,
                                progress=lambda message: console.print(f"[dim]{escape(message)}[/]"))
    state = "built" if result.built else "already built"
    console.print(f"{escape(result.tag)} [green]{state}[/] in {result.seconds:.1f}s (labs: {', '.join(result.labs)})")
