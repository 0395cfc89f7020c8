"""The IPython magics: `%flink_connect [URL] [--token-file FILE]` and `%%flink [options]` (see docs/notebook.md).

A magic never lets a traceback reach the cell: Flink's errors print as the shell prints them (the `[ERROR]` block),
flinklab's own (no gateway, a refused token, bad options) as one line with what to do.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.display import display

from flinklab.errors import FlinklabError, UsageError
from flinklab.notebook.display import DISPLAYS
from flinklab.notebook.kernel import CellOptions, KernelSession
from flinklab.notebook.save import save_step

MIN_REFRESH_MS = 100


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse would exit the kernel
        usage = " ".join(self.format_usage().split()[1:])  # one line, without argparse's "usage:"
        raise UsageError(f"{self.prog}: {message}.", f"Usage: {usage}")


def _whole_number(flag: str, minimum: int, what: str, example: int) -> Callable[[str], int]:
    """An option's type: a whole number of at least `minimum`; anything else is one line saying what it must be
    (a UsageError passes through argparse, whose own message would be `invalid <type name> value: '0'`)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise UsageError(f"%%flink: {flag} must be {what}, not {text!r}.", f"For example: {flag} {example}")
        return value

    return parse


CELL = _Parser(prog="%%flink", add_help=False)
CELL.add_argument("--display", choices=DISPLAYS[:3])
CELL.add_argument("--max-rows", type=_whole_number("--max-rows", 1, "a positive whole number", 100), default=1000)
CELL.add_argument("--refresh-ms", type=_whole_number(
    "--refresh-ms", MIN_REFRESH_MS, f"a whole number of milliseconds, at least {MIN_REFRESH_MS}", 500), default=500)
CELL.add_argument("--as", dest="as_name", metavar="NAME")
CELL.add_argument("--init", type=Path, metavar="FILE")
CELL.add_argument("--lab", metavar="LAB")
CELL.add_argument("--save", metavar="STEP")

CONNECT = _Parser(prog="%flink_connect", add_help=False)
CONNECT.add_argument("url", nargs="?")
CONNECT.add_argument("--token-file", type=Path, metavar="FILE")


def parse_cell_line(line: str) -> CellOptions:
    """The options of a `%%flink` line; UsageError (one line) for anything wrong."""
    args = CELL.parse_args(_split(line, "%%flink"))
    if (args.lab is None) != (args.save is None):
        raise UsageError("%%flink: --lab and --save go together.", "For example: %%flink --lab joins --save regular")
    if args.as_name is not None and not args.as_name.isidentifier():
        raise UsageError(f"%%flink: --as {args.as_name!r} is not a Python name.", "For example: --as orders")
    return CellOptions(display=args.display, max_rows=args.max_rows, refresh_ms=args.refresh_ms,
                       as_name=args.as_name, init=args.init, lab=args.lab, save=args.save)


def _split(line: str, prog: str) -> list[str]:
    try:
        return shlex.split(line)
    except ValueError as exc:
        raise UsageError(f"{prog}: {exc}.", "Quote values with spaces, and close every quote.") from None


def report(exc: FlinklabError) -> None:
    """One line for a person: what went wrong and what to do."""
    sys.stderr.write(exc.message + (f" {exc.hint}" if exc.hint else "") + "\n")


@magics_class
class FlinkMagics(Magics):
    """`%flink_connect` and `%%flink`, on one gateway session per kernel."""

    def __init__(self, shell: Any, kernel: KernelSession | None = None):
        super().__init__(shell)
        self.kernel = kernel or KernelSession()

    @line_magic
    def flink_connect(self, line: str) -> None:
        """%flink_connect [URL] [--token-file FILE]: this kernel's session on the gateway at URL (default: the one
        `flink-up` started, its token included)."""
        try:
            args = CONNECT.parse_args(_split(line, "%flink_connect"))
            url = self.kernel.connect(_endpoint(args.url) if args.url else None, args.token_file)
        except FlinklabError as exc:
            report(exc)
            return
        sys.stdout.write(f"Connected to the SQL gateway at {url} (one session for this kernel).\n")

    @cell_magic
    def flink(self, line: str, cell: str) -> Any:
        """%%flink [--display append|update|single] [--max-rows N] [--refresh-ms MS] [--as NAME] [--init FILE]
        [--lab LAB --save STEP]: run the cell's statements in this kernel's session."""
        try:
            return self._flink(line, cell)
        except FlinklabError as exc:
            report(exc)
        except KeyboardInterrupt:  # between statements, or while the result is being built: nothing runs any more
            sys.stdout.write("[INFO] Interrupted.\n")
        return None

    def _flink(self, line: str, cell: str) -> Any:
        options = parse_cell_line(line)
        if options.save is not None:
            save_step(self.kernel, str(options.lab), options.save, cell, display, options.refresh_ms)
            return None
        outcome = self.kernel.run_cell(cell, options, display)
        if outcome is None or outcome.failed:
            return None
        frame = outcome.view.frame()
        if options.as_name is not None:
            self.shell.user_ns[options.as_name] = frame
            return None
        if outcome.view.display != "single":
            outcome.live.collapse(outcome.status)  # the cell's value shows the table: not twice
        return frame

def _endpoint(url: str) -> str:
    """`host:port` or a URL, as the gateway's base URL."""
    text = url.strip()
    return (text if "://" in text else f"http://{text}").rstrip("/")
