"""The typer app and the one place user errors are turned into a one-line message and an exit status.

Command modules (cluster.py, sql.py, labs.py, image.py, show.py) register their commands on `app` with `@command(...)`;
each command body parses options, calls a library function and hands the result to a renderer. The root group
(LazyGroup) imports a command's module the first time that command is asked for.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from flinklab.errors import ExitStatus, FlinklabError
from flinklab.settings import Settings

F = TypeVar("F", bound=Callable[..., Any])

#: The modules under flinklab.cli that register commands on `app`, and which one registers each command name, in
#: the order `flinklab --help` lists them. Tests keep the table complete.
COMMAND_MODULES = ("cluster", "sql", "labs", "image", "show", "teach")
COMMANDS = {
    "up": "cluster", "down": "cluster", "status": "cluster", "logs": "cluster", "prepare": "cluster",
    "sql": "sql",
    "run": "labs", "check": "labs", "labs": "labs", "new-lab": "labs", "fixtures": "labs",
    "image": "image",
    "show": "show",
    "grade": "teach",
    "class-report": "teach",
    "new-course": "teach",
}


def load_commands(modules: Sequence[str] = COMMAND_MODULES) -> None:
    """Import command modules (each registers its commands on `app`)."""
    for name in modules:
        importlib.import_module(f"flinklab.cli.{name}")


def _registered_name(info: Any) -> str:
    return info.name or info.callback.__name__.replace("_", "-")


class LazyGroup(TyperGroup):
    """The root group, loading each command's module only when the command is asked for (click's documented
    lazy-loading pattern: `list_commands` names them from the COMMANDS table, `get_command` imports the module),
    so `flinklab check` imports neither Docker's nor the cluster's modules, and `--help` imports only the command
    modules (whose own heavy imports are inside the command bodies)."""

    def list_commands(self, ctx: Any) -> list[str]:
        return [*COMMANDS, *(name for name in super().list_commands(ctx) if name not in COMMANDS)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        found = super().get_command(ctx, cmd_name)
        if found is None and cmd_name in COMMANDS:
            load_commands([COMMANDS[cmd_name]])
            found = _build(cmd_name)
            if found is not None:
                self.add_command(found, cmd_name)
        return found


def _build(name: str) -> Any:
    """The click command (or group) `name` from what its module registered on `app`, built by typer's public
    get_command on a Typer holding just that registration (a callback keeps it a group of one)."""
    one = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    one.callback()(lambda: None)
    one.registered_commands = [i for i in app.registered_commands if _registered_name(i) == name]
    one.registered_groups = [g for g in app.registered_groups if g.name == name]
    return typer.main.get_command(one).commands.get(name)


app = typer.Typer(
    name="flinklab",
    cls=LazyGroup,
    help="A real Flink cluster, a sql-client-compatible runner and graded Flink SQL labs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    # A callback makes `app` a group even while only one command module is loaded: without it typer turns a
    # one-command app into that command, and `flinklab sql -f q.sql` read "sql" as an extra argument.
    pass


console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def _click_errors() -> tuple[type[Exception], tuple[type[Exception], ...]]:
    """click's ClickException and NoArgsIsHelpError (absent before click 8.2): typer vendors click from 0.20 on."""
    try:
        from typer._click import exceptions  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - older typer on the real click
        from click import exceptions  # type: ignore[no-redef]
    no_args = getattr(exceptions, "NoArgsIsHelpError", None)
    return exceptions.ClickException, (no_args,) if no_args is not None else ()


def run(typer_app: typer.Typer, prog_name: str, args: Sequence[str] | None = None) -> None:
    """Run a console script: like `typer_app(prog_name=...)`, but a bad option or argument (`--scale x`, an
    unknown option, a missing argument) is one line naming it and the --help to read, exit 2, instead of typer's
    usage box."""
    click_error, no_args_error = _click_errors()
    args = list(sys.argv[1:] if args is None else args)
    try:
        result = typer.main.get_command(typer_app).main(args=args, prog_name=prog_name, standalone_mode=False)
    except no_args_error:
        typer_app(args=args, prog_name=prog_name)  # typer prints the help (and exits) as it always does
        return
    except click_error as exc:
        ctx = getattr(exc, "ctx", None)
        where = ctx.command_path if ctx is not None else prog_name
        print_error(FlinklabError(exc.format_message().replace("\n", " "), f"See `{where} --help`."))
        sys.exit(exc.exit_code)
    except FlinklabError as exc:  # raised while finding a command (a lab plug-in that cannot load)
        print_error(exc)
        sys.exit(int(exc.exit_status))
    except typer.Abort:
        err_console.print("[yellow]aborted[/]")
        sys.exit(int(ExitStatus.ERROR_CTRL_C))
    sys.exit(result if isinstance(result, int) else 0)


def print_error(exc: FlinklabError) -> None:
    """One line: what went wrong, then what to do."""
    line = f"[bold red]error:[/] {escape(exc.message)}"
    if exc.hint:
        line += f" [dim]→[/] {escape(exc.hint)}"
    err_console.print(line, soft_wrap=True)


def friendly(fn: F) -> F:
    """Turn FlinklabError (and Ctrl-C) into a one-line message and the right exit status."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except FlinklabError as exc:
            print_error(exc)
            raise typer.Exit(int(exc.exit_status)) from None
        except KeyboardInterrupt:
            err_console.print("[yellow]interrupted[/]")
            raise typer.Exit(int(ExitStatus.ERROR_CTRL_C)) from None

    return wrapper  # type: ignore[return-value]


def command(*args: Any, target: typer.Typer | None = None, **kwargs: Any) -> Callable[[F], F]:
    """`@command("name")` = `@app.command("name")` with :func:`friendly` error handling."""

    def deco(fn: F) -> F:
        (target or app).command(*args, **kwargs)(friendly(fn))
        return fn

    return deco


def settings_from(**overrides: Any) -> Settings:
    """Settings from the environment with the CLI options that were given (None = not given)."""
    return Settings.from_env(**overrides)
