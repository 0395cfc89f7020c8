"""sql-client.sh's options, its positional mode and its summary: one table that the typer app (sql.py) builds its
options from and `quick_help` prints for `sql-client.sh --help`, so the two cannot differ. It imports nothing:
`--help` is answered before anything else loads (typer and rich cost a third of a second to import).
"""

from __future__ import annotations

#: sql-client.sh's options as its `--help` lists them: name -> (flags, metavar, help). sql.py builds the typer
#: options from this table and `quick_help` prints it, so the quick `--help` and typer's parser cannot differ.
OPTIONS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "init": (("-i", "--init"), "FILE", "SQL run first to set up the session (DDL, SET). Repeatable."),
    "file": (("-f", "--file"), "FILE", "Script to execute (default: read stdin)."),
    "define": (("-D",), "KEY=VALUE", "A session option, as `SET`. Repeatable."),
    "endpoint": (("-e", "--endpoint"), "HOST:PORT", "The SQL gateway to use (with the `gateway` mode)."),
    "history": (("-hist", "--history"), "PATH", "The shell's history file (default ~/.flink-sql-history)."),
    "session": (("-s", "--session"), "NAME", "The name of the shell's session."),
}
#: the positional argument: (metavar, help), and what the command does
MODE = ("[gateway|embedded]", "Flink's client modes.")
SUMMARY = "Flink's SQL client, on flinklab's SQL gateway (an interactive shell on a terminal without -f)."
HELP_OPTION = ("--help", "Show this message and exit.")


def quick_help(prog: str = "sql-client.sh") -> str:
    """`sql-client.sh --help` as plain text, from OPTIONS (no typer, no rich: it prints in a tenth of the time)."""
    rows = [(f"{', '.join(flags)} {metavar}", text) for flags, metavar, text in OPTIONS.values()]
    rows.append(HELP_OPTION)
    width = max(len(left) for left, _ in [*rows, MODE]) + 2
    lines = [f"Usage: {prog} [OPTIONS] {MODE[0]}", "", f"  {SUMMARY}", "", "Arguments:",
             f"  {MODE[0]:<{width}}{MODE[1]}", "", "Options:"]
    lines += [f"  {left:<{width}}{text}" for left, text in rows]
    return "\n".join(lines) + "\n"
