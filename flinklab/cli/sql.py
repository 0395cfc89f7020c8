"""`flinklab sql` and the `sql-client.sh` console script: a thin client of the SQL gateway.

`sql-client.sh [gateway --endpoint HOST:PORT | embedded] [-i init.sql]... [-f script.sql] [-D key=value]...`
prints what the real client prints to stdout (redirect with `> x.out 2>&1`). On a terminal without `-f` it opens
the interactive shell (flinklab.sqlclient.shell), as Flink's client does; piped stdin runs as a script. Without a
mode it uses the gateway `flink-up` started (127.0.0.1:8083); `gateway --endpoint` names another one (Flink's
syntax); `embedded` starts a gateway inside this process for this one call (a JVM: slow, no `flink-up` gateway
needed). Exit status: 0 when every statement succeeded, 1 when one failed (the real client says 0 here; a script
needs to know), 2 when it could not run (missing file, no gateway).
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from flinklab.cli.app import command, friendly
from flinklab.cli.sql_options import MODE, OPTIONS, SUMMARY
from flinklab.cli.sql_run import endpoint_url, parse_defines, run_sql, sql_status, terminated_status
from flinklab.errors import ExitStatus, UsageError
from flinklab.sqlclient.signals import Terminated

__all__ = ["endpoint_url", "parse_defines", "run_sql", "sql", "sql_client_app", "sql_client_main"]

# typer reads these annotations at run time: typing.Optional/List keep the CLI working on Python 3.9.


def _option(name: str) -> typer.models.OptionInfo:
    """The typer option of sql_run.OPTIONS[name] (the table the quick `--help` prints)."""
    flags, metavar, text = OPTIONS[name]
    return typer.Option(None, *flags, metavar=metavar, help=text)


INIT_OPT = _option("init")
FILE_OPT = _option("file")
DEFINE_OPT = _option("define")
ENDPOINT_OPT = _option("endpoint")
HISTORY_OPT = _option("history")
SESSION_OPT = _option("session")
JAR_OPT = typer.Option(None, "-j", "--jar", metavar="JAR", hidden=True)
LIBRARY_OPT = typer.Option(None, "-l", "--library", metavar="DIR", hidden=True)
PYTHON_OPTS = ("-pyfs", "--pyFiles", "-pyarch", "--pyArchives", "-pyexec", "--pyExecutable",
               "-pyclientexec", "--pyClientExecutable", "-pyreq", "--pyRequirements")
PY_OPT = typer.Option(None, *PYTHON_OPTS, metavar="VALUE", hidden=True)


def _sql(init: Optional[List[Path]], file: Optional[Path], define: Optional[List[str]], *,
         url: str | None = None, embedded: bool = False, history: str | None = None,
         session: str | None = None) -> None:
    try:
        status = sql_status(list(init or []), file, list(define or []), url=url, embedded=embedded,
                            history=history, session=session)
    except Terminated as exc:  # SIGTERM / SIGHUP: the session was closed on the gateway on the way out
        raise typer.Exit(terminated_status(exc)) from None
    if status != ExitStatus.SUCCESS:
        raise typer.Exit(int(status))


@command("sql")
def sql(
    init: Optional[List[Path]] = INIT_OPT,
    file: Optional[Path] = FILE_OPT,
    define: Optional[List[str]] = DEFINE_OPT,
) -> None:
    """Run SQL on the cluster like `sql-client.sh -i init.sql -f script.sql` (stdout; exit 1 if a statement fails)."""
    _sql(init, file, define)


def _sql_client(
    mode: Optional[str] = typer.Argument(None, metavar=MODE[0], help=MODE[1]),
    init: Optional[List[Path]] = INIT_OPT,
    file: Optional[Path] = FILE_OPT,
    define: Optional[List[str]] = DEFINE_OPT,
    endpoint: Optional[str] = ENDPOINT_OPT,
    history: Optional[str] = HISTORY_OPT,
    session: Optional[str] = SESSION_OPT,
    jar: Optional[List[str]] = JAR_OPT,
    library: Optional[List[str]] = LIBRARY_OPT,
    python: Optional[List[str]] = PY_OPT,
) -> None:
    """Flink's SQL client, on flinklab's SQL gateway (an interactive shell on a terminal without -f)."""
    if jar or library or python:
        raise UsageError(
            "Jars and Python dependencies (-j, -l, -py*) are not supported: flinklab's gateway runs Flink's own "
            "connectors and formats only.",
            "Use the connectors and formats the Flink distribution ships (datagen, filesystem, print, blackhole, csv, "
            "json, raw).",
        )
    if mode not in (None, "embedded", "gateway"):
        raise UsageError(
            f"Mode {mode!r} is not supported.",
            "Use sql-client.sh [gateway --endpoint HOST:PORT | embedded] [-i FILE] [-f FILE] [-D k=v].",
        )
    if mode == "gateway" and endpoint is None:
        raise UsageError("The gateway mode needs --endpoint HOST:PORT.", "For example: --endpoint 127.0.0.1:8083.")
    if endpoint is not None and mode != "gateway":
        raise UsageError("--endpoint goes with the gateway mode.", "sql-client.sh gateway --endpoint HOST:PORT ...")
    _sql(init, file, define, url=endpoint_url(endpoint) if endpoint else None, embedded=mode == "embedded",
         history=history, session=session)


sql_client_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
sql_client_app.command(help=SUMMARY)(friendly(_sql_client))


def sql_client_main() -> None:
    """Console script `sql-client.sh`."""
    sql_client_app(prog_name="sql-client.sh")
