"""The typer app and the one place user errors are turned into a one-line message and an exit status.

Command modules (cluster.py, sql.py, labs.py, image.py, show.py) register their commands on `app` with `@command(...)`;
each command body parses options, calls a library function and hands the result to a renderer.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from flinklab.errors import ExitStatus, FlinklabError
from flinklab.settings import Settings

F = TypeVar("F", bound=Callable[..., Any])

app = typer.Typer(
    name="flinklab",
    help="A real Flink cluster, a sql-client-compatible runner and graded Flink SQL labs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


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
