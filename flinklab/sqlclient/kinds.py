"""A statement's kind, from its leading keywords, as the client decides how to run and print it."""

from __future__ import annotations

#: Commands the client answers itself, as Flink's CliClient does (they never reach the gateway).
CLIENT_COMMANDS = {"HELP": "help", "QUIT": "quit", "EXIT": "quit", "CLEAR": "clear"}

_KIND_WORDS = [
    ("SET", "set"),
    ("RESET", "reset"),
    ("SELECT", "query"),
    ("WITH", "query"),
    ("VALUES", "query"),
    ("INSERT", "insert"),
    ("EXECUTE STATEMENT SET", "statement_set"),
    ("BEGIN STATEMENT SET", "begin_statement_set"),
    ("END", "statement_set"),
    ("EXECUTE PLAN", "execute_plan"),
    ("COMPILE AND EXECUTE", "execute_plan"),
    ("COMPILE PLAN", "compile_plan"),
    ("EXPLAIN", "explain"),
    ("SHOW", "show"),
    ("DESCRIBE", "describe"),
    ("DESC", "describe"),
    ("CREATE", "ddl"),
    ("DROP", "ddl"),
    ("ALTER", "ddl"),
    ("USE", "ddl"),
    ("LOAD", "ddl"),
    ("UNLOAD", "ddl"),
    ("ADD", "ddl"),
]


def guess_kind(bare: str) -> str:
    """The statement's kind from its leading keywords (comments stripped)."""
    words = " ".join(bare.upper().split())
    if words in CLIENT_COMMANDS:
        return CLIENT_COMMANDS[words]
    for prefix, kind in _KIND_WORDS:
        if words == prefix or words.startswith((prefix + " ", prefix + "(")):
            return kind
    return "other"
