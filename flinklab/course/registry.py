"""Lab discovery: a lab is any installed package that registers its `LAB` under the entry-point group
`flinklab.labs` (the built-in joins and windows labs do it in flinklab's own pyproject.toml):

    [project.entry-points."flinklab.labs"]
    mylab = "flinklab_mylab:LAB"

A plug-in that cannot be loaded (an import error, an object that is not a Lab, a name that is not its entry's) is
one line naming it; the other labs keep working.
"""

from __future__ import annotations

import os
import sys
from functools import cache, lru_cache
from importlib import metadata

from flinklab.errors import UsageError
from flinklab.lab_api import Lab

GROUP = "flinklab.labs"


class BadLabError(UsageError):
    """A registered lab plug-in that cannot be loaded."""


def _entry_points() -> dict[str, metadata.EntryPoint]:
    """The registered labs by name, scanned once per state of sys.path: a scan reads every installed
    distribution's metadata (17 ms with the ~180 a test install holds, and one `flink-up` asked 14 times: 0.24 s
    before its JVMs started), while an install or uninstall changes the modification time of the sys.path dir it
    writes into, so a lab installed while a process runs (a notebook's kernel) is still found."""
    return _scan(_path_state())


def _path_state() -> tuple[tuple[str, int | None], ...]:
    state = []
    for entry in sys.path:
        try:
            state.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            state.append((entry, None))
    return tuple(state)


@lru_cache(maxsize=1)
def _scan(path_state: tuple[tuple[str, int | None], ...]) -> dict[str, metadata.EntryPoint]:
    found = metadata.entry_points(group=GROUP)
    # The first of two distributions registering one name wins (an editable install seen twice is one lab).
    points: dict[str, metadata.EntryPoint] = {}
    for point in found:
        points.setdefault(point.name, point)
    return points


def available_labs() -> list[str]:
    """The registered lab names, sorted (loading none of them)."""
    return sorted(_entry_points())


def built_in(name: str) -> bool:
    """Is the lab registered as `name` one of flinklab's own (its distribution is flinklab's), not a plug-in's?"""
    dist = getattr(_entry_points().get(name), "dist", None)
    return dist is not None and (dist.metadata["Name"] or "").lower() == "flinklab"


@cache
def _load(name: str, value: str) -> Lab:
    point = _entry_points()[name]
    hint = f"Reinstall or uninstall the package that registers {name!r} under the entry-point group {GROUP!r}."
    try:
        lab = point.load()
    except Exception as exc:  # noqa: BLE001 - any error of a third-party plug-in is one line, not a traceback
        raise BadLabError(f"The lab plug-in {name!r} ({value}) cannot be loaded: {type(exc).__name__}: {exc}",
                          hint) from None
    if not isinstance(lab, Lab):
        raise BadLabError(f"The lab plug-in {name!r} ({value}) is a {type(lab).__name__}, not a flinklab Lab.", hint)
    if lab.name != name:
        raise BadLabError(f"The lab plug-in {name!r} ({value}) is the lab {lab.name!r}; the names must agree.", hint)
    return lab


def get_lab(name: str) -> Lab:
    """The lab registered as `name`; UsageError (one line) for an unknown name or a plug-in that cannot load."""
    points = _entry_points()
    if name not in points:
        raise UsageError(f"Unknown lab {name!r}.", f"Labs: {', '.join(sorted(points)) or 'none'}.")
    return _load(name, points[name].value)


def load_labs() -> tuple[list[Lab], list[BadLabError]]:
    """Every lab that loads, and one error per plug-in that does not."""
    labs: list[Lab] = []
    bad: list[BadLabError] = []
    for name in available_labs():
        try:
            labs.append(get_lab(name))
        except BadLabError as exc:
            bad.append(exc)
    return labs, bad


def course_order(labs: list[Lab]) -> list[Lab]:
    """`labs` in the order a learner takes them: each after the labs its `after` names (a name that is not among
    `labs` is ignored), flinklab's own labs before plug-ins, else by name. A cycle of `after`s is broken by name."""
    by_name = {lab.name: lab for lab in labs}
    pending = sorted(labs, key=lambda lab: (not built_in(lab.name), lab.name))
    ordered: list[Lab] = []
    done: set[str] = set()
    while pending:
        ready = next((lab for lab in pending if all(a in done or a not in by_name for a in lab.after)), pending[0])
        ordered.append(ready)
        done.add(ready.name)
        pending.remove(ready)
    return ordered
