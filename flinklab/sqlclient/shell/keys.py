"""The prompt's keys beyond prompt_toolkit's emacs defaults (which bring Ctrl-R history search, Ctrl-A/E, ...):
Enter runs the buffer when it holds a finished statement, else starts a new line.

"Finished" is decided by the file runner's splitter, so the shell and `-f` agree on where a statement ends: the
buffer ends with a `;` outside quotes, backquotes, comments and `/*+ */` hints (and an `EXECUTE STATEMENT SET
BEGIN ...` block only at its `END;`).
"""

from __future__ import annotations

from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from flinklab.flink.sql_split import split_statements, strip_comments

_SENTINEL = "flinklab_statement_end_probe"


def is_finished(text: str) -> bool:
    """True when Enter should run `text`: it is empty, or its last `;` ends a statement (nothing after it but
    whitespace and comments)."""
    if not text.strip():
        return True
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

    @bindings.add("c-d")
    def _(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if not buffer.text:
            event.app.exit(exception=EOFError)
        elif buffer.cursor_position < len(buffer.text):
            buffer.delete()
        else:  # a line above the prompt, which is drawn again below it with the buffer as it was
            run_in_terminal(lambda: print(UNFINISHED, flush=True))

    @bindings.add("enter")
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

    return bindings
