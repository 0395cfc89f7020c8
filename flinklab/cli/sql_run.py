"""What `sql-client.sh` and `flinklab sql` run once their options are parsed, and the quick start of
`sql-client.sh -f`: no typer and no rich are imported here (they cost more than the rest of a call's start).

`quick_args` reads the common forms `[-i FILE]... -f FILE [-D KEY=VALUE]...` itself; anything else (--help, a
mode, a rare or malformed option) returns None and the typer app in sql.py parses it, so its messages and exit
statuses stay the only ones. A user error is rendered by flinklab.cli.app, imported only then.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn, TextIO

from flinklab.cli.sql_options import OPTIONS
from flinklab.errors import ExitStatus, FlinklabError, UsageError
from flinklab.settings import Settings
from flinklab.sqlclient.signals import CLOSE_SECONDS, SignalGuard, Terminated
from flinklab.sqlclient.sqlfiles import read_script, read_sql

_INIT = OPTIONS["init"][0]
_FILE = OPTIONS["file"][0]
_DEFINE = OPTIONS["define"][0]


def parse_defines(items: list[str]) -> dict[str, str]:
    """`-D key=value` pairs; a pair without `=` or with an empty key is a usage error."""
    defines: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"-D {item!r} is not key=value.", "Write it as -D execution.runtime-mode=batch.")
        defines[key.strip()] = value.strip()
    return defines


def endpoint_url(endpoint: str) -> str:
    """`host:port` (or a URL) as the gateway's base URL; anything else is a usage error naming it."""
    text = endpoint.strip()
    if "://" not in text:
        text = "http://" + text
    from urllib.parse import urlparse

    try:
        parsed = urlparse(text)
        port = parsed.port
    except ValueError:
        port = None
        parsed = None
    if parsed is None or not parsed.hostname or port is None or parsed.scheme not in ("http", "https"):
        raise UsageError(f"--endpoint {endpoint!r} is not HOST:PORT.", "For example: --endpoint 127.0.0.1:8083.")
    return f"{parsed.scheme}://{parsed.hostname}:{port}"


def run_sql(
    init: list[Path], file: Path | None, defines: dict[str, str], *, stdin: TextIO, out: TextIO,
    url: str | None = None, embedded: bool = False, history: str | None = None, session: str | None = None,
) -> ExitStatus:
    """Check the inputs, connect to the gateway, run one invocation (or, on a terminal without `-f`, the
    interactive shell), and say how it went."""
    # Read once here so a bad path fails before stdin is read (and before a missing gateway would hide it). The
    # shell (a terminal, no -f) opens without a missing -i file and says so (ShellSession.open).
    shell = file is None and stdin.isatty() and out.isatty()
    for path in init:
        if not (shell and not path.exists() and not path.is_symlink()):
            read_sql(path)
    if file is not None:
        read_script(file)
    from flinklab.environment.client import LabSqlClient
    from flinklab.sqlclient.client import run_invocation

    settings = Settings.from_env()
    # SIGTERM / SIGHUP raise Terminated here: the `finally` blocks close the operation and the session (cancelling
    # the query's job) on the way out, as on Ctrl-C (the shell sets up its own guard for its prompt and views). A
    # script's Ctrl-C ends the process too: its clean-up is held to the same grace
    with SignalGuard(interrupts=not shell) as guard:
        client = LabSqlClient(settings, url, embedded=embedded)
        guard.on_signal(lambda: client.api.shorten_timeout(CLOSE_SECONDS))
        try:
            if shell:
                from flinklab.sqlclient.shell.app import ShellOptions, run_shell

                return run_shell(ShellOptions(client.url, client.cluster_url, list(init), defines, history,
                                              session, heartbeat_seconds=settings.shell_heartbeat,
                                              token=client.api.token_source), out)
            script_text = None
            if file is None:
                if stdin.isatty():
                    from flinklab.cli.app import err_console

                    err_console.print("[dim]Reading SQL from stdin; end with Ctrl-D.[/]")
                script_text = stdin.read()
            with client.watching():  # a JobManager that dies mid-query ends the call at once, not after minutes
                result = run_invocation(
                    client, out, init_files=init, script_file=file, defines=defines, script_text=script_text
                )
        finally:
            client.close()
    return ExitStatus.SUCCESS if result.ok else ExitStatus.FAILURE


def sql_status(init: list[Path], file: Path | None, define: list[str], *, url: str | None = None,
               embedded: bool = False, history: str | None = None, session: str | None = None) -> ExitStatus:
    """One call on stdin and stdout; stdout that cannot be written is a usage error (a full disk, a closed pipe).
    A call with `-i` files whose stdout is a regular file leaves its record beside it (grading.run_record)."""
    try:
        status = run_sql(
            init, file, parse_defines(define), stdin=sys.stdin, out=sys.stdout,
            url=url, embedded=embedded, history=history, session=session,
        )
        sys.stdout.flush()  # here, not at exit: a full disk is then one line, not "Exception ignored"
    except OSError as exc:  # stdout cannot be written (`> out` on a full disk, a closed pipe)
        _drop_stdout()
        raise UsageError(f"Cannot write the output (stdout): {exc.strerror or exc}.",
                         "Free some space where the output goes, then run again.") from None
    if init:  # `-i ddl.sql ... > STEP.out`: what the output cannot say (which ddl.sql ran), kept for the grader
        from flinklab.grading.run_record import record_stdout_run

        record_stdout_run(init, file)
    return status


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so what is still buffered cannot fail again when Python exits."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real file behind stdout (tests)
        pass


def quick_args(argv: list[str]) -> tuple[list[Path], Path, list[str]] | None:
    """(init files, script file, -D items) of `[-i FILE]... -f FILE [-D KEY=VALUE]...` in any order, or None
    for anything else: typer then parses it (and says what is wrong). A value that is empty or starts with `-`,
    a second `-f`, `--opt=value` and glued `-fFILE` forms are left to typer too: they are rare, and its reading
    of them is the one that counts."""
    init: list[Path] = []
    files: list[Path] = []
    define: list[str] = []
    args = iter(argv)
    for arg in args:
        value = next(args, None)
        if value is None or not value or value.startswith("-"):
            return None
        if arg in _INIT:
            init.append(Path(value))
        elif arg in _FILE:
            files.append(Path(value))
        elif arg in _DEFINE:
            define.append(value)
        else:
            return None
    if len(files) != 1:
        return None
    return init, files[0], define


def run_quick(init: list[Path], file: Path, define: list[str]) -> NoReturn:
    """Run `sql-client.sh -f` as the typer command would, with its exit statuses and one-line errors."""
    try:
        status = sql_status(init, file, define)
    except FlinklabError as exc:
        from flinklab.cli.app import print_error

        print_error(exc)
        sys.exit(int(exc.exit_status))
    except KeyboardInterrupt:
        from flinklab.cli.app import err_console

        err_console.print("[yellow]interrupted[/]")
        sys.exit(int(ExitStatus.ERROR_CTRL_C))
    except Terminated as exc:
        sys.exit(terminated_status(exc))
    sys.exit(int(status))


def terminated_status(exc: Terminated) -> int:
    """The exit status after SIGTERM / SIGHUP (128 + its number), what was printed flushed first; nothing more is
    said (Flink's client says nothing either). A terminal that hung up takes no more output: stdout is dropped then,
    so that Python's own flush at exit cannot fail and change the status."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        _drop_stdout()
    return exc.exit_status
