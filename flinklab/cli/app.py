"""The typer app and the one place user errors are turned into a one-line message and an exit status.

Command modules (cluster.py, sql.py, labs.py, image.py, show.py) register their commands on `app` with `@command(...)`;
each command body parses options, calls a library function and hands the result to a renderer.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Sequence
from typing import Any, Callable, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from flinklab.errors import ExitStatus, FlinklabError
from flinklab.settings import Settings

F = TypeVar("F", bound=Callable[..., Any])

#: The modules under flinklab.cli that register commands on `app`, and which one registers each command name. A
#: command missing here still works (an unknown name loads every module); tests keep the table complete.
COMMAND_MODULES = ("cluster", "sql", "labs", "image", "show")
COMMANDS = {
    "up": "cluster", "down": "cluster", "status": "cluster", "logs": "cluster",
    "sql": "sql",
    "run": "labs", "check": "labs", "fixtures": "labs", "labs": "labs", "new-lab": "labs",
    "image": "image",
    "show": "show",
}


def load_commands(modules: Sequence[str] = COMMAND_MODULES) -> None:
    """Import command modules (each registers its commands on `app`); a module not delivered yet is skipped."""
    for name in modules:
        try:
            importlib.import_module(f"flinklab.cli.{name}")
        except ModuleNotFoundError as exc:  # pragma: no cover - only while a module is missing
            if exc.name != f"flinklab.cli.{name}":
                raise


class LazyTyper(typer.Typer):
    """A Typer whose command modules are imported the first time its commands are read (to build the click
    command, `--help` included), so `flinklab check` imports neither Docker's nor the cluster's modules:
    :func:`load_for` imports just the invoked command's module first."""

    def __init__(self, **kwargs: Any):
        self._loaded = True  # typer's own __init__ sets the lists below; nothing to load yet
        super().__init__(**kwargs)
        self._loaded = False

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True  # first: the modules being imported register through the properties below
            load_commands()

    @property  # type: ignore[override]
    def registered_commands(self) -> list[Any]:
        self._load()
        return self.__dict__["_commands"]

    @registered_commands.setter
    def registered_commands(self, value: list[Any]) -> None:
        self.__dict__["_commands"] = value

    @property  # type: ignore[override]
    def registered_groups(self) -> list[Any]:
        self._load()
        return self.__dict__["_groups"]

    @registered_groups.setter
    def registered_groups(self, value: list[Any]) -> None:
        self.__dict__["_groups"] = value

    def load_for(self, args: Sequence[str]) -> None:
        """Once per process, before the console script runs `args`: import only the module of the command `args`
        name (all of them for `--help`, no command or a name not in COMMANDS). Commands of other modules are then
        unknown to this process, so tests, which run many commands, leave this out."""
        name = next((arg for arg in args if not arg.startswith("-")), None)
        if name in COMMANDS:
            self.load_only([COMMANDS[name]])

    def load_only(self, modules: Sequence[str]) -> None:
        """Import just `modules` (their registering on `app` must not pull in the others); once per process, for
        a console script, as :meth:`load_for`."""
        if not self._loaded:
            self._loaded = True
            load_commands(modules)


app = LazyTyper(
    name="flinklab",
    help="A real Flink cluster, a sql-client-compatible runner and graded Flink SQL labs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

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
