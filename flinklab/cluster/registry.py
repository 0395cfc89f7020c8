"""The one list of cluster backends. Adding a backend = one module implementing ClusterBackend + one line here.

Entries are import paths, not classes, so that listing the names (Settings validates `--backend` against them)
imports no backend module and none of their dependencies (the Docker SDK). The order is `auto`'s preference: the
first backend whose `usable()` says yes serves `flink-up`; the last one is the fallback when none does.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from flinklab.errors import ClusterError

if TYPE_CHECKING:
    from flinklab.cluster.base import ClusterBackend

BACKENDS: dict[str, str] = {
    "remote": "flinklab.cluster.remote:RemoteBackend",  # attach to a cluster flinklab did not start
    "docker": "flinklab.cluster.docker:DockerBackend",  # containers of the Flink image
    "local": "flinklab.cluster.local:LocalBackend",  # JVMs from the PyPI Flink (the fallback)
}


def backend_names() -> tuple[str, ...]:
    """Every backend's name, in `auto`'s order of preference."""
    return tuple(BACKENDS)


def backend_class(name: str) -> type[ClusterBackend]:
    """The class registered as `name`; ClusterError when it is unknown or its module cannot be imported."""
    try:
        module_name, _, class_name = BACKENDS[name].partition(":")
    except KeyError:
        raise ClusterError(f"Unknown backend {name!r}.", f"Choose one of: {', '.join(BACKENDS)}.") from None
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ClusterError(f"The {name} backend is not available in this installation ({exc}).",
                           "Choose another with `--backend` (or FLINKLAB_BACKEND).") from None
    return getattr(module, class_name)
