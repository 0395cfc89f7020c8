"""Console entry points. Commands live in the modules imported below; see app.py for the shared machinery."""

from __future__ import annotations

import importlib

from flinklab.cli.app import app

# Each module registers its commands on `app`. A module another issue has not delivered yet is simply absent.
for _name in ("cluster", "sql", "labs", "image", "show"):
    try:
        importlib.import_module(f"flinklab.cli.{_name}")
    except ModuleNotFoundError as _exc:  # pragma: no cover - only while a module is missing
        if _exc.name != f"flinklab.cli.{_name}":
            raise


def main() -> None:
    app()


def _module_main(name: str, fn: str) -> None:
    getattr(importlib.import_module(f"flinklab.cli.{name}"), fn)()


def flink_up_main() -> None:
    _module_main("cluster", "flink_up_main")


def flink_down_main() -> None:
    _module_main("cluster", "flink_down_main")


def sql_client_main() -> None:
    _module_main("sql", "sql_client_main")
