"""The prompt's keys beyond prompt_toolkit's emacs defaults (which bring Ctrl-R history search, Ctrl-A/E, ...):
Enter runs the buffer when it holds a finished statement, else starts a new line (an empty buffer too: Flink's
SqlMultiLineParser answers a line not ending with `;` with a continuation line). Enter in the Ctrl-R search takes
the statement found into the buffer, and runs it when it is finished; Esc leaves the search with it.

"Finished" is decided by the file runner's splitter, so the shell and `-f` agree on where a statement ends: the
buffer ends with a `;` outside quotes, backquotes, comments and `/*+ */` hints (and an `EXECUTE STATEMENT SET
BEGIN ...` block only at its `END;`).
"""

from __future__ import annotations

from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.filters import is_searching
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.search import accept_search

from flinklab.flink.sql_split import split_statements, strip_comments
from flinklab.sqlclient.shell.validate import VALIDATE_COMMAND

_SENTINEL = "flinklab_statement_end_probe"


def is_finished(text: str) -> bool:
    """True when Enter should run `text`: its last `;` ends a statement (nothing after it but whitespace and
    comments). An empty buffer is not finished (Flink opens a continuation line)."""
    if not text.strip():
        return False
    if not text.rstrip().endswith(";") and not _ends_in_comment(text):
        return False
    # a probe statement after the text survives as its own statement only if the text's last `;` really ended
    # one (not inside a quote, a comment, a hint, or a statement set)
    statements = split_statements(text + "\n" + _SENTINEL)
    return len(statements) > 1 and strip_comments(statements[-1]) == _SENTINEL


def _ends_in_comment(text: str) -> bool:
    last = text.rstrip().splitlines()[-1] if text.strip() else ""
    return "--" in last or text.rstrip().endswith("*/")


UNFINISHED = ("The statement is not finished (an open quote, comment or statement set?): end it with ';', "
              "or drop it with Ctrl-C.")


def prompt_bindings() -> KeyBindings:
    """Enter: run a finished statement, else a new line (Alt-Enter always inserts a new line). Ctrl-D: leave on
    an empty buffer; on an unfinished one say why nothing runs (instead of silently doing nothing)."""
    bindings = KeyBindings()

    @bindings.add("c-d", filter=~is_searching)
    def _(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if not buffer.text.strip():  # empty, or only the continuation lines of Enter on an empty prompt
            event.app.exit(exception=EOFError)
        elif buffer.cursor_position < len(buffer.text):
            buffer.delete()
        else:  # a line above the prompt, which is drawn again below it with the buffer as it was
            run_in_terminal(lambda: print(UNFINISHED, flush=True))

    @bindings.add("enter", filter=is_searching)
    def _(event: KeyPressEvent) -> None:
        accept_search()  # the found statement into the prompt's buffer, which has the focus again
        buffer = event.app.current_buffer
        if is_finished(buffer.text):
            buffer.validate_and_handle()

    @bindings.add("enter", filter=~is_searching)
    def _(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.complete_state is not None and buffer.complete_state.current_completion is not None:
            buffer.apply_completion(buffer.complete_state.current_completion)
            return
        if is_finished(buffer.text):
            buffer.validate_and_handle()
        else:
            buffer.insert_text("\n")

    @bindings.add("escape", "enter")
    def _(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @bindings.add("escape", "v", filter=~is_searching)
    def _(event: KeyPressEvent) -> None:  # Alt-V: validate the buffer without running it (\validate)
        buffer = event.current_buffer
        if buffer.text.strip():
            buffer.text = f"{VALIDATE_COMMAND} {buffer.text.strip()}"
            buffer.validate_and_handle()

    return bindings


def open_at_lines(text: str) -> list[str]:
    """For each line of `text`, what is still open where it starts (FLIP-189's prompt idea): `'` inside a string,
    `"` or `` ` `` inside a quoted identifier, `/*` inside a comment, `/*+` inside a hint, and one `(` per open
    parenthesis; "" when nothing is. One pass over the text (a long paste is scanned once, not once per line)."""
    states = [""]
    depth, state, i, n = 0, "", 0, len(text)
    while i < n:
        char = text[i]
        if char == "\n":
            if state == "--":
                state = ""
            states.append("(" * depth + state)
        elif state in ("'", '"', "`"):
            if char == state:
                if text.startswith(state, i + 1):  # a doubled quote stays inside
                    i += 1
                else:
                    state = ""
        elif state in ("/*", "/*+"):
            if text.startswith("*/", i):
                state, i = "", i + 1
        elif state == "":
            if text.startswith("--", i):
                state, i = "--", i + 1
            elif text.startswith("/*+", i):
                state, i = "/*+", i + 2
            elif text.startswith("/*", i):
                state, i = "/*", i + 1
            elif char in "'\"`":
                state = char
            elif char == "(":
                depth += 1
            elif char == ")":
                depth = max(0, depth - 1)
        i += 1
    return states
