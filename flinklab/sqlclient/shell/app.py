"""The shell: a prompt_toolkit PromptSession reading statements, the client's own commands (HELP, QUIT, EXIT,
CLEAR), and each statement handed to the executor; its result printed by the file runner's printer or shown in
a full-screen view.

Flink's CliClient does the same on JLine. Differences on purpose: values of secret-looking options are masked in
the history file; a lost session is reopened (with the `-i` files run again) instead of failing every statement;
the welcome is flinklab's own.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.lexers import PygmentsLexer
from prompt_toolkit.styles import Style

from flinklab.errors import ExitStatus, FlinklabError
from flinklab.flink.sql_split import split_statements, strip_comments
from flinklab.flink.tls import WEB_UI_PATH
from flinklab.sqlclient.client import DML_SYNC, guess_kind
from flinklab.sqlclient.printer import CONTINUATION_PROMPT, PROMPT
from flinklab.sqlclient.protocol import GatewayError
from flinklab.sqlclient.shell import validate
from flinklab.sqlclient.shell.completer import GatewayCompleter
from flinklab.sqlclient.shell.executor import MSG_RESULT_QUIT, GatewayGone, ShellSession
from flinklab.sqlclient.shell.gateway import HEARTBEAT_SECONDS, Heartbeat
from flinklab.sqlclient.shell.history import history_path, mend, open_history
from flinklab.sqlclient.shell.keys import open_at_lines, prompt_bindings
from flinklab.sqlclient.shell.lexer import FlinkSqlLexer, style_rules
from flinklab.sqlclient.shell.views.base import ResultView
from flinklab.sqlclient.signals import CLOSE_SECONDS, SignalGuard, Terminated

MSG_QUIT = "[INFO] Exiting Flink SQL CLI Client..."
COLOR_SCHEMA = "sql-client.display.color-schema"
SHOW_LINE_NUMBERS = "sql-client.display.show-line-numbers"
_CLEAR_SCREEN = "\x1b[H\x1b[2J"
_JOB_KINDS = ("insert", "statement_set", "execute_plan")


@dataclass
class ShellOptions:
    """What `sql-client.sh` was started with, for its interactive shell."""

    gateway_url: str
    cluster_url: str | None = None
    init_files: list[Path] = field(default_factory=list)
    defines: dict[str, str] = field(default_factory=dict)
    history: str | None = None  # -hist PATH
    session_name: str | None = None  # -s NAME
    heartbeat_seconds: float = HEARTBEAT_SECONDS
    token: Callable[[], str | None] | None = None  # the gateway's token, as the client that opened the shell has it


def welcome(version: str, options: ShellOptions) -> str:
    """flinklab's own welcome: what the shell talks to, and how to get help and leave."""
    cluster = ""
    if options.cluster_url:
        # an https cluster is a `--shared` one: its port wants a client certificate, the gateway forwards its Web UI
        web_ui = (f"its Web UI: {options.gateway_url.rstrip('/')}{WEB_UI_PATH}/"
                  if options.cluster_url.startswith("https:") else "its Web UI too")
        cluster = f"\n  Flink cluster: {options.cluster_url} ({web_ui})"
    return (f"flinklab's Flink SQL shell, on Flink {version}.{cluster}\n"
            f"  SQL gateway:   {options.gateway_url}\n"
            "A statement runs when it ends with ';'. Enter 'HELP;' for the commands, 'QUIT;' to leave.\n")


class Shell:
    """One interactive shell: its gateway session, its prompt, its history."""

    def __init__(self, options: ShellOptions, out: TextIO | None = None):
        self.options = options
        self.out = out or sys.stdout
        self.executor = ShellSession(options.gateway_url, options.defines, options.init_files, self.out,
                                     token=options.token)
        self.executor.api.session_name = options.session_name
        self.heartbeat: Heartbeat | None = None
        self.gone = False
        self.prompt: PromptSession[str] | None = None
        self.screen_app: Application[None] | None = None  # the full-screen view's application while it shows
        self.guard = SignalGuard()
        self._opened: tuple[str, list[str]] = ("", [""])  # the buffer's text and what is open at each line

    def say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    # ---- lifecycle ----------------------------------------------------------------------------------------

    def run(self) -> ExitStatus:
        """Welcome, set up the session, then read statements until QUIT/EXIT or Ctrl-D. The exit status.

        SIGTERM / SIGHUP end it as Flink's shell ends on them: Terminated (flinklab.sqlclient.signals) leaves the
        prompt, a statement or a view, whose operation and then the session are closed on the way out."""
        with SignalGuard(self._deliver) as self.guard:
            self.guard.on_signal(lambda: self.executor.api.shorten_timeout(CLOSE_SECONDS))
            return self._run()

    def _deliver(self, terminated: Terminated) -> bool:
        """From the signal handler: a running prompt or view is told to exit with `terminated` (an exception raised
        through its event loop would leave the terminal as the application set it); True when one was."""
        for app in (self.prompt.app if self.prompt is not None else None, self.screen_app):
            if app is not None and app.is_running and app.loop is not None:
                app.loop.call_soon_threadsafe(functools.partial(_exit_app, app, terminated))
                return True
        return False

    def _run(self) -> ExitStatus:
        try:
            version = str(self.executor.api.info().get("version", "?"))
            path = history_path(self.options.history)
            # Flink's SqlClient.openCli runs the -i files (printing their line) before the welcome
            if not self.executor.open():
                return ExitStatus.FAILURE
            self.say(welcome(version, self.options))
            self.say(f"Command history file path: {path}")
            history = open_history(path, self.say)
            self.heartbeat = Heartbeat(self.options.gateway_url, self._lost, self.options.heartbeat_seconds,
                                       token=self.options.token)
            self.heartbeat.start(self.executor.handle)
            self.prompt = self._prompt_session(history)
            return self._loop()
        except FlinklabError as exc:
            self.say(f"[ERROR] {exc.message}" + (f" → {exc.hint}" if exc.hint else ""))
            return ExitStatus.ERROR
        finally:
            if self.heartbeat is not None:
                self.heartbeat.stop()
            if not self.gone:
                self.executor.close()

    def _lost(self, gone: bool) -> None:
        """From the heartbeat thread: the gateway is gone (end the shell now) or forgot the session."""
        if not gone:
            self.executor.lost = True
            return
        self.gone = True
        app = self.prompt.app if self.prompt is not None else None
        if app is not None and app.is_running and app.loop is not None:
            error = GatewayGone(self.options.gateway_url)
            app.loop.call_soon_threadsafe(functools.partial(app.exit, exception=error))

    def _prompt_session(self, history: object) -> PromptSession[str]:
        session: PromptSession[str] = PromptSession(
            message=PROMPT, multiline=True, key_bindings=prompt_bindings(), history=history,  # type: ignore
            lexer=PygmentsLexer(FlinkSqlLexer), completer=GatewayCompleter(self._complete),
            complete_while_typing=False, prompt_continuation=self._continuation, enable_history_search=False,
            style=self._style(), include_default_pygments_style=False, mouse_support=False,
        )
        return session

    def _style(self) -> Style:
        return Style.from_dict(style_rules(self.executor.conf.get(COLOR_SCHEMA, "default")))

    def _continuation(self, width: int, line_number: int, wrap_count: int) -> FormattedText:
        """Flink's `> ` (`[N]> ` with line numbers), after what is still open where the line starts: `'> ` in a
        string, `/*> ` in a comment, `(> ` in a parenthesis (flinklab's, after FLIP-189)."""
        opened = self._open_at(line_number) if wrap_count == 0 else ""
        number = f"[{line_number + 1}]" if self.executor.conf.get(SHOW_LINE_NUMBERS, "false").strip().lower() \
            == "true" else ""
        return FormattedText([("", number), ("class:continuation.open", opened), ("", CONTINUATION_PROMPT)])

    def _open_at(self, line_number: int) -> str:
        text = self.prompt.default_buffer.text if self.prompt is not None else ""
        if self._opened[0] is not text:  # scanned once per buffer text, not once per line drawn
            self._opened = (text, open_at_lines(text))
        states = self._opened[1]
        return states[line_number] if line_number < len(states) else ""

    def _complete(self, statement: str, position: int) -> list[str]:
        return self.executor.api.complete(self.executor.handle, statement, position)

    # ---- the loop -----------------------------------------------------------------------------------------

    def _loop(self) -> ExitStatus:
        assert self.prompt is not None
        while True:
            if self.gone:
                raise GatewayGone(self.options.gateway_url)
            try:
                text = self.prompt.prompt(style=self._style())
            except KeyboardInterrupt:
                continue  # Ctrl-C on the prompt: the buffer is dropped
            except EOFError:
                self.guard.check()  # a terminal that hung up ends the input too: SIGHUP's status, not Ctrl-D's
                return self._quit(ctrl_d=True)  # Ctrl-D on an empty line
            self.guard.check()  # a signal that came as the prompt returned: the statement is not run
            for statement in split_statements(mend(text)):
                try:
                    if self.run_statement(statement) == "quit":
                        return self._quit()
                except FlinklabError:
                    raise
                except Exception as exc:  # noqa: BLE001 - a bug of the shell must not end a learner's session
                    self.say(f"[ERROR] The shell failed on this statement ({type(exc).__name__}: {exc}); "
                             "please report it. The session goes on.")

    def _quit(self, ctrl_d: bool = False) -> ExitStatus:
        """QUIT/EXIT print Flink's quit line; Ctrl-D leaves Flink's reading loop without one. Both then print the
        shutdown lines."""
        if not ctrl_d:
            self.say(MSG_QUIT)
        self.executor.printer.shutdown()
        return ExitStatus.SUCCESS

    def run_statement(self, statement: str) -> str:
        """Run one statement typed at the prompt; its kind ("quit" ends the shell)."""
        target = validate.requested(statement)
        if target is not None:
            self._validate(target)
            return "validate"
        kind = guess_kind(strip_comments(statement))
        if kind == "quit":
            return kind
        if kind == "help":
            self.executor.printer.help()
            return kind
        if kind == "clear":
            self.out.write(_CLEAR_SCREEN)
            self.out.flush()
            return kind
        if self.executor.reopen_if_lost() and self.heartbeat is not None:
            self.heartbeat.follow(self.executor.handle)
        try:
            view = self.executor.view_for(statement)
            if view is not None:
                self._view(statement, view)
            elif kind in _JOB_KINDS and self.executor.conf.get(DML_SYNC, "false").strip().lower() != "true":
                self._submit(statement)
            else:
                self.executor.execute(statement)
        except KeyboardInterrupt:
            self.out.write("\n")  # the statement's operation is closed (its job cancelled): back to the prompt
        self.out.write("\n")
        self.out.flush()
        return kind

    def _validate(self, statement: str) -> None:
        """`\\validate <statement>`: what it would do, in one screen, nothing run."""
        kind = guess_kind(strip_comments(statement))
        if kind not in validate.EXPLAINABLE:
            self.say(f"[INFO] {validate.VALIDATE_COMMAND} explains queries, INSERTs and statement sets; "
                     "run other statements to check them.\n")
            return
        if self.executor.reopen_if_lost() and self.heartbeat is not None:
            self.heartbeat.follow(self.executor.handle)
        try:
            self.say("\n".join(validate.render(self.executor.validate(statement))) + "\n")
        except GatewayError as exc:
            self.executor.printer.error(self.executor.reason(exc))
            self.say("")

    def _submit(self, statement: str) -> None:
        """INSERT / statement set / EXECUTE PLAN, as Flink's shell runs them: print the job id and go back to the
        prompt while the job runs (its operation stays open: closing it would cancel the job)."""
        api, printer = self.executor.api, self.executor.printer
        try:
            operation = api.execute(self.executor.handle, statement)
            first = next(p for p in api.pages(self.executor.handle, operation) if p.result_type != "NOT_READY")
        except GatewayError as exc:
            printer.error(self.executor.reason(exc))
            return
        if first.job_id:
            printer.submitted(first.job_id)
        else:
            api.close_operation(self.executor.handle, operation)
            printer.ok()

    def _view(self, statement: str, view: type[ResultView]) -> None:
        """A query in a full-screen view; leaving it while the query runs cancels the query."""
        from flinklab.sqlclient.shell.views.screen import ViewScreen

        try:
            operation, result, pages, first = self.executor.start_query(statement)
        except GatewayError as exc:
            self.executor.printer.error(self.executor.reason(exc))
            return
        feeding = self.executor.feed(result, first, pages)
        try:
            screen = ViewScreen(result, view)
            self.screen_app = screen.app
            screen.run()
            self.guard.check()
        finally:
            self.screen_app = None
            self.executor.stop_feed(result, feeding, operation)
        if result.gone:
            raise GatewayGone(self.options.gateway_url)
        if result.error is not None:
            self.executor.printer.error(result.error)
        else:  # Flink's Printer says it whenever the view is left, the query finished or not
            self.say(MSG_RESULT_QUIT)


def _exit_app(app: Application[Any], terminated: Terminated) -> None:
    """On the application's loop: exit it with `terminated`, unless it is already leaving (then the shell's next
    `guard.check()` raises it); an application still starting (no future yet) is asked again a moment later."""
    if not app.is_running or app.loop is None:
        return
    if app.future is None:
        app.loop.call_later(0.05, _exit_app, app, terminated)
    elif not app.future.done():
        app.exit(exception=terminated)


def run_shell(options: ShellOptions, out: TextIO | None = None) -> ExitStatus:
    """Open the shell on a terminal and run it to its end; the exit status (0 after QUIT/EXIT/Ctrl-D)."""
    return Shell(options, out).run()
