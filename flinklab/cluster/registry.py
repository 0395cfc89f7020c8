"""The cluster backends listed in flinklab.settings.BACKENDS, by name and loaded by class.

Adding a backend = one module implementing ClusterBackend + one line in that table (it is in the settings, which
validate `--backend` against it and import nothing above themselves). The order is `auto`'s preference: the first
backend whose `usable()` says yes serves `flink-up`; the last one is the fallback when none does.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from flinklab import settings as _settings
from flinklab.errors import ClusterError

if TYPE_CHECKING:
    from flinklab.cluster.base import ClusterBackend

def backend_names() -> tuple[str, ...]:
    """Every backend's name, in `auto`'s order of preference."""
    return tuple(_settings.BACKENDS)


def backend_class(name: str) -> type[ClusterBackend]:
    """The class registered as `name`; ClusterError when it is unknown or its module cannot be imported."""
    try:
        module_name, _, class_name = _settings.BACKENDS[name].partition(":")
    except KeyError:
        raise ClusterError(f"Unknown backend {name!r}.", f"Choose one of: {', '.join(_settings.BACKENDS)}.") from None
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ClusterError(f"The {name} backend is not available in this installation ({exc}).",
                           "Choose another with `--backend` (or FLINKLAB_BACKEND).") from None
    return getattr(module, class_name)
