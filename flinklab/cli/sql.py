"""`flinklab sql` and the `sql-client.sh` console script: the sql-client-compatible runner.

`sql-client.sh [embedded] [-i init.sql]... [-f script.sql] [-D key=value]...` prints what the real client prints
to stdout (redirect with `> x.out 2>&1`). Exit status: 0 when every statement succeeded, 1 when one failed (the
real client says 0 here; a script needs to know), 2 when it could not run (missing file, no cluster).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

import typer

from flinklab.cli.app import command, err_console, friendly, settings_from
from flinklab.errors import ExitStatus, UsageError
from flinklab.sqlclient.sqlfiles import read_sql

INIT_OPT = typer.Option(
    None, "-i", "--init", metavar="FILE", help="SQL run first to set up the session (DDL, SET). Repeatable."
)
FILE_OPT = typer.Option(None, "-f", "--file", metavar="FILE", help="Script to execute (default: read stdin).")
DEFINE_OPT = typer.Option(None, "-D", metavar="KEY=VALUE", help="A session option, as `SET`. Repeatable.")


def parse_defines(items: list[str]) -> dict[str, str]:
    """`-D key=value` pairs; a pair without `=` or with an empty key is a usage error."""
    defines: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"-D {item!r} is not key=value.", "Write it as -D execution.runtime-mode=batch.")
        defines[key.strip()] = value.strip()
    return defines


def run_sql(
    init: list[Path], file: Path | None, defines: dict[str, str], *, stdin: TextIO, out: TextIO
) -> ExitStatus:
    """Check the inputs, start the runner JVM, run one invocation, and say how it went."""
    # Read once here so a bad path fails before stdin is read and the JVM starts (and before a missing cluster
    # would hide it); the runner reads the files again, which costs little for SQL scripts.
    for path in [*init, *([file] if file is not None else [])]:
        read_sql(path)
    script_text = None
    if file is None:
        if stdin.isatty():
            err_console.print("[dim]Reading SQL from stdin; end with Ctrl-D.[/]")
        script_text = stdin.read()

    from flinklab.sqlclient.runner import SqlClient, run_invocation

    client = SqlClient(settings_from())
    try:
        result = run_invocation(
            client, out, init_files=init, script_file=file, defines=defines, script_text=script_text
        )
    finally:
        client.close()
    return ExitStatus.SUCCESS if result.ok else ExitStatus.FAILURE


def _sql(init: list[Path] | None, file: Path | None, define: list[str] | None) -> None:
    status = run_sql(
        list(init or []), file, parse_defines(list(define or [])), stdin=sys.stdin, out=sys.stdout
    )
    if status != ExitStatus.SUCCESS:
        raise typer.Exit(int(status))


@command("sql")
def sql(
    init: list[Path] | None = INIT_OPT,
    file: Path | None = FILE_OPT,
    define: list[str] | None = DEFINE_OPT,
) -> None:
    """Run SQL on the cluster like `sql-client.sh -i init.sql -f script.sql` (stdout; exit 1 if a statement fails)."""
    _sql(init, file, define)


def _sql_client(
    mode: str | None = typer.Argument(None, metavar="[embedded]", help="Accepted for compatibility."),
    init: list[Path] | None = INIT_OPT,
    file: Path | None = FILE_OPT,
    define: list[str] | None = DEFINE_OPT,
) -> None:
    """Flink's SQL client, on the running flinklab cluster."""
    if mode not in (None, "embedded"):
        raise UsageError(
            f"Mode {mode!r} is not supported.",
            "Only the embedded mode exists here: sql-client.sh [embedded] [-i FILE] [-f FILE] [-D k=v].",
        )
    _sql(init, file, define)


sql_client_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
sql_client_app.command()(friendly(_sql_client))


def sql_client_main() -> None:
    """Console script `sql-client.sh`."""
    sql_client_app(prog_name="sql-client.sh")
