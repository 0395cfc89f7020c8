"""Console entry points. Commands live in the modules named in app.COMMANDS; see app.py for the shared machinery.

Nothing heavy is imported here: `app` loads a command's module when the command is first asked for, and each entry
point imports only what it runs (so `sql-client.sh --help` and `flinklab check` start without the cluster code).
`sql-client.sh -f` and `--help` import neither typer nor rich (flinklab.cli.sql_run, sql_options); the typer app is
flinklab.cli.app.app.
"""

from __future__ import annotations

import importlib
import sys


def main() -> None:
    from flinklab.cli.app import app, run

    run(app, "flinklab")


def _module_app(module: str, name: str, prog_name: str) -> None:
    from flinklab.cli.app import run

    # the module also registers on `app`; that imports no other command module
    run(getattr(importlib.import_module(f"flinklab.cli.{module}"), name), prog_name)


def flink_up_main() -> None:
    _module_app("cluster", "up_app", "flink-up")


def flink_down_main() -> None:
    _module_app("cluster", "down_app", "flink-down")


def sql_client_main() -> None:
    if sys.argv[1:] == ["--help"]:  # the common case of help, printed before anything else is imported
        from flinklab.cli.sql_options import quick_help

        sys.stdout.write(quick_help())
        sys.exit(0)
    from flinklab.cli.sql_run import quick_args, run_quick

    quick = quick_args(sys.argv[1:])
    if quick is not None:
        run_quick(*quick)
    _module_app("sql", "sql_client_app", "sql-client.sh")


__all__ = ["flink_down_main", "flink_up_main", "main", "sql_client_main"]  # the typer app: flinklab.cli.app.app
