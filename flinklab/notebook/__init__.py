"""Flink SQL in Jupyter: `%load_ext flinklab.notebook`, then `%flink_connect` and `%%flink` cells on the lab's
SQL gateway (one session per kernel, live displays, `--save` for the lab's grader). See docs/notebook.md."""

from __future__ import annotations

from typing import Any


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics (`%load_ext flinklab.notebook`)."""
    from flinklab.notebook.magics import FlinkMagics

    ipython.register_magics(FlinkMagics(ipython))


def unload_ipython_extension(ipython: Any) -> None:
    """Close the kernel's gateway session (`%unload_ext flinklab.notebook`)."""
    magics = ipython.magics_manager.registry.get("FlinkMagics")
    if magics is not None:
        magics.kernel.close()
