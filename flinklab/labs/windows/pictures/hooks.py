"""What the windows lab draws for flinklab (its `LabPictures`): a failed step's windows for the HTML report, and the
timeline of `flinklab show windows`. The figure modules load when a picture is asked for."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from flinklab.lab_api import GradingContext, Settings

if TYPE_CHECKING:  # the picture model loads with a picture: `flinklab --help` and `check` need none
    from flinklab.lab_api import Picture

#: The terminal shows this many minutes of event time unless --from/--to say otherwise (fits 80 columns).
TERMINAL_MINUTES = 30


def step_pictures(ctx: GradingContext, step: str) -> list[Picture]:
    """A failed window step's expected windows against the learner's (none for the other steps)."""
    from flinklab.lab_api import Picture
    from flinklab.labs.windows.pictures.figure import VIEWS, load_orders, windows_figure
    from flinklab.labs.windows.pictures.svg import windows_svg

    if step not in VIEWS:
        return []
    orders, _ = load_orders(ctx.data_dir)
    figure = windows_figure(orders, step, ctx.workspace)
    caption = (f"{VIEWS[step].title}: the expected windows, then yours from {step}.out "
               f"({len(figure.differences)} difference(s) marked)")
    notes = [] if figure.differences or not figure.compared else [
        "Your final windows match the expected ones: the failed check is about how they were emitted (see its hint)."]
    return [Picture("windows", caption, windows_svg(figure).to_string(), figure.differences, notes)]


def show(settings: Settings, step: str | None, time_from: str | None, time_to: str | None, width: int,
         svg: Path | None) -> tuple[object, Path | None]:
    """`flinklab show windows`: the terminal picture (a range of TERMINAL_MINUTES unless given) and, with `svg`,
    the whole range as an SVG file."""
    from flinklab.lab_api import write_svg
    from flinklab.labs.windows import reference as ref
    from flinklab.labs.windows.pictures.figure import windows_figure_for
    from flinklab.labs.windows.pictures.svg import windows_svg
    from flinklab.labs.windows.pictures.term import windows_renderable

    figure = windows_figure_for(settings, step, time_from, time_to, default_span=TERMINAL_MINUTES * ref.MINUTE)
    renderable = windows_renderable(figure, width)
    written = None
    if svg is not None:
        written = write_svg(windows_svg(windows_figure_for(settings, step, time_from, time_to)), svg)
    return renderable, written
