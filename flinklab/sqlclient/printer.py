"""Every byte `sql-client.sh` prints comes from here (Flink's CliStrings and Printer, on our tableau layout).

Message texts are the Flink 2.2.1 client's (CliStrings); layouts are in tableau.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from flinklab.sqlclient import tableau

PROMPT = "Flink SQL> "
CONTINUATION_PROMPT = "> "

MSG_EXECUTE_FILE = "[INFO] Executing SQL from file."
MSG_STATEMENT_OK = "[INFO] Execute statement succeeded."
MSG_SUBMITTING = "[INFO] Submitting SQL update statement to the cluster..."
MSG_SUBMITTED = "[INFO] SQL update statement has been successfully submitted to the cluster:"
MSG_COMPLETE = "[INFO] Complete execution of the SQL update statement."
MSG_ERROR = "[ERROR] Could not execute SQL statement. Reason:"
MSG_SHUTDOWN = "Shutting down the session...\ndone."


#: The client's own answer to HELP (CliStrings.MESSAGE_HELP of the 2.2.1 client, tabs included).
_HELP_COMMANDS = [
    ("HELP", "Prints the available commands."),
    ("QUIT/EXIT", "Quits the SQL CLI client."),
    ("CLEAR", "Clears the current terminal."),
    ("SET", 'Sets a session configuration property. Syntax: "SET \'<key>\'=\'<value>\';". Use "SET;" for listing '
            "all properties."),
    ("RESET", 'Resets a session configuration property. Syntax: "RESET \'<key>\';". Use "RESET;" for reset all '
              "session properties."),
    ("INSERT INTO", "Inserts the results of a SQL SELECT query into a declared table sink."),
    ("INSERT OVERWRITE", "Inserts the results of a SQL SELECT query into a declared table sink and overwrite "
                         "existing data."),
    ("SELECT", "Executes a SQL SELECT query on the Flink cluster."),
    ("EXPLAIN", "Describes the execution plan of a query or table with the given name."),
    ("BEGIN STATEMENT SET", 'Begins a statement set. Syntax: "BEGIN STATEMENT SET;"'),
    ("END", 'Ends a statement set. Syntax: "END;"'),
    ("ADD JAR", "Adds the specified jar file to the submitted jobs' classloader. Syntax: \"ADD JAR "
                "'<path_to_filename>.jar'\""),
    ("REMOVE JAR", "Removes the specified jar file from the submitted jobs' classloader. Syntax: \"REMOVE JAR "
                   "'<path_to_filename>.jar'\""),
    ("SHOW JARS", "Shows the list of user-specified jar dependencies. This list is impacted by the --jar and "
                  "--library startup options as well as the ADD/REMOVE JAR commands."),
]
MESSAGE_HELP = (
    "The following commands are available:\n\n"
    + "".join(f"{name:<19}\t\t{text}\n" for name, text in _HELP_COMMANDS)
    + '\nHint: Make sure that a statement ends with ";" for finalizing (multi-line) statements.\n'
    "You can also type any Flink SQL statement, please visit "
    "https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/overview/ for more details."
)


def echo(statement: str) -> str:
    """The statement as typed at the prompt: `Flink SQL> ` first, `> ` before each further line."""
    lines = statement.split("\n")
    echoed = [PROMPT + lines[0]] + [CONTINUATION_PROMPT + line for line in lines[1:]]
    echoed[-1] += ";"
    return "\n".join(echoed)


def reason_from_server(text: str) -> str:
    """What the real client prints after `Reason:` for a gateway error: the text after the last `Caused by: `,
    up to its first `\\tat ` (Flink 2.2's CliStrings.messageError on a RestClientException)."""
    return text.split("Caused by: ")[-1].split("\tat ")[0].strip()


class Printer:
    """Writes one invocation's output to `out`, flushing where a watching learner expects to see progress."""

    def __init__(self, out: TextIO):
        self.out = out

    def write(self, text: str) -> None:
        self.out.write(text)

    def lines(self, lines: Sequence[str]) -> None:
        self.out.write("".join(line + "\n" for line in lines))

    def flush(self) -> None:
        self.out.flush()

    def statement(self, statement: str) -> None:
        self.out.write("\n" + echo(statement) + "\n")
        self.out.flush()

    def executing_file(self) -> None:
        self.lines([MSG_EXECUTE_FILE])

    def ok(self) -> None:
        self.lines([MSG_STATEMENT_OK])

    def help(self) -> None:
        self.lines([MESSAGE_HELP])

    def submitted(self, job_id: str) -> None:
        self.out.write(f"{MSG_SUBMITTING}\n{MSG_SUBMITTED}\nJob ID: {job_id}\n\n")
        self.out.flush()

    def completed(self) -> None:
        self.lines([MSG_COMPLETE])

    def error(self, reason: str) -> None:
        self.out.write(f"{MSG_ERROR}\n{reason}\n")
        self.out.flush()

    def initialized(self, uri: str) -> None:
        """After an `-i` file ran: Flink's SqlClient.openCli prints this line (to stdout) before the `-f` file or the
        prompt, in both modes; `uri` is the `-i` argument as typed (CliOptionsParser keeps it: URI.create)."""
        self.lines([f"Successfully initialized from sql script: {uri}"])

    def init_failed(self, uri: str) -> None:
        self.lines([f"Failed to initialize from sql script: {uri}. See the [ERROR] above."])

    def end_of_file(self) -> None:
        self.out.write("\n" + PROMPT)  # the prompt that met the end of the file

    def shutdown(self) -> None:
        self.out.write("\n" + MSG_SHUTDOWN + "\n")
        self.out.flush()

    def content(self, names: Sequence[str], rows: Sequence[Sequence[str | None]]) -> None:
        """SHOW / DESCRIBE / EXPLAIN / `SET;`: uncapped widths, NULL as an empty cell, no time cost."""
        self.lines(tableau.render_content(names, rows))

    def batch_result(self, names: Sequence[str], rows: Sequence[Sequence[str]], max_width: int,
                     seconds: float | None) -> None:
        self.lines(tableau.render_batch(names, rows, max_width=max_width, seconds=seconds))

    def terminated(self, count: int) -> None:
        self.lines([f"Query terminated, received a total of {count} {'rows' if count > 1 else 'row'}"])


class StreamingPrinter:
    """A streaming query's changelog tableau, printed as pages of rows arrive."""

    def __init__(self, printer: Printer, columns: Sequence[tableau.ColumnType], max_width: int):
        self.printer = printer
        self.table = tableau.StreamingTableau(columns, max_width)
        printer.lines(self.table.header())
        printer.flush()

    @property
    def count(self) -> int:
        return self.table.count

    def rows(self, rows: Sequence[tuple[str, Sequence[str]]]) -> None:
        if rows:
            self.printer.lines([self.table.row(kind, cells) for kind, cells in rows])
            self.printer.flush()

    def footer(self, seconds: float | None) -> None:
        self.printer.lines(self.table.footer(seconds))
