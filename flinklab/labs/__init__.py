"""Lab registry: a lab is the module flinklab/labs/<name>/ exposing `LAB`."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from flinklab.errors import UsageError
from flinklab.labs.base import Lab


def available_labs() -> list[str]:
    """The lab names: every subpackage here (the shared machinery is plain modules: base, runner, ...)."""
    here = Path(__file__).parent
    return sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.ispkg)


def get_lab(name: str) -> Lab:
    if name not in available_labs():
        raise UsageError(f"Unknown lab {name!r}.", f"Labs: {', '.join(available_labs()) or 'none'}.")
    return importlib.import_module(f"flinklab.labs.{name}").LAB
