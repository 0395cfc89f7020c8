"""Is a step's saved output the output of the SQL file beside it? Decided by content, never by file times.

Our client (`sql-client.sh -f`, and `flinklab run`, which runs each step through it) echoes every statement of the
`-f` file after its `Flink SQL> ` prompt, so the output itself says what ran: its echoed statements must be the
file's statements (comments and spacing aside), all of them, or the ones up to the `[ERROR]` that stopped the run.
Real Flink's client glues its echo to what follows (or echoes nothing) in a file: such an output says nothing about
its SQL, and grades as it is, unless the SQL file is gone or holds no statement, which no output can excuse.

The `-i` file (ddl.sql) is not echoed: the record a run of our client leaves beside its output
(flinklab.grading.run_record) says which ddl.sql it ran, and a step whose output that record still describes is
stale when ddl.sql holds other SQL now. Without such a record (real Flink's client, an output written another way)
nothing is said. A step with neither its SQL file nor its output is not written yet: its checks all say so, with
one hint to write the file first.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from flinklab.flink.sql_split import split_statements, strip_comments
from flinklab.grading.files import FileReadError, MissingFileError, read_text
from flinklab.grading.run_record import changed_init, sql_tokens
from flinklab.sqlclient.printer import CONTINUATION_PROMPT, PROMPT

#: A step's SQL file is never large; a bigger one is not the learner's query.
MAX_SQL_BYTES = 4 << 20


@dataclass(frozen=True)
class StepFiles:
    """A step as the freshness check sees it: its id, SQL file and output file (workspace-relative)."""

    id: str
    sql_file: str
    out_file: str


@dataclass(frozen=True)
class Stale:
    """Why a step's output cannot be graded as the work of its SQL file and ddl.sql (or why the step has no work yet):
    one line, and the command that fixes it."""

    step: str
    message: str
    hint: str


def echoed_statements(output: str) -> list[str] | None:
    """The statements an output of our client echoed, in order (without their `;`); None when the output does not
    echo as ours does (real Flink's client in a file, a hand-made file): then it says nothing about its SQL."""
    lines = output.split("\n")
    statements: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith(PROMPT.rstrip()):
            i += 1
            continue
        block = [line[len(PROMPT):]] if line.startswith(PROMPT) else None
        i += 1
        while i < len(lines) and lines[i].startswith(CONTINUATION_PROMPT):
            if block is not None:
                block.append(lines[i][len(CONTINUATION_PROMPT):])
            i += 1
        if block == [""]:
            continue  # the prompt that met the end of the file
        if block is None or not block[-1].endswith(";"):
            return None  # `Flink SQL>` alone, or an echo glued to what follows: not ours
        text = "\n".join(block)
        statements.append(text[:-1])
    return statements or None  # no echo at all (PyFlink's print(), a hand-made table): nothing to compare


def _same(a: str, b: str) -> bool:
    """The same statement, comments and spacing aside (`TUMBLE(TABLE` is `TUMBLE(\n  TABLE`)."""
    return sql_tokens(a) == sql_tokens(b)


def _fix(lab: str, step: StepFiles) -> str:
    return (f"`sql-client.sh -i ddl.sql -f {step.sql_file} > {step.out_file} 2>&1` in the workspace "
            f"(or `flinklab run {lab} --only {step.id}`)")


def stale_step(workspace: Path, lab: str, step: StepFiles, *, init_file: str = "ddl.sql",
               number: int | None = None) -> Stale | None:
    """Why `step`'s output is not the work of its SQL file (and of `init_file`, the lab's `-i` file) as they are
    now; None when it is, when the output does not say what ran (real Flink's client), or when the output is not
    there (the step's checks say so; when its SQL file is not there either, the step is not written yet: the
    Stale says to write it, naming the guide's step `number`)."""
    out_path = Path(workspace) / step.out_file
    try:
        output = read_text(out_path, label=step.out_file)
    except MissingFileError:
        return _not_written(workspace, lab, step, number)
    except FileReadError:
        return None  # unreadable: the step's own checks say so
    try:
        sql = read_text(Path(workspace) / step.sql_file, limit=MAX_SQL_BYTES, label=step.sql_file)
    except MissingFileError:
        return Stale(step.id, f"{step.sql_file} does not exist, so {step.out_file} is left from SQL that is gone.",
                     f"Save the step's query as {step.sql_file}, then run it: {_fix(lab, step)}.")
    except FileReadError as exc:
        return Stale(step.id, str(exc), f"Fix {step.sql_file}, then run it: {_fix(lab, step)}.")
    statements = split_statements(sql)
    if not any(strip_comments(s) for s in statements):
        return Stale(step.id, f"{step.sql_file} holds no SQL statement (it is empty or only comments), so "
                     f"{step.out_file} is not its output.",
                     f"Write the step's query in {step.sql_file}, then run it: {_fix(lab, step)}.")
    echoed = echoed_statements(output)
    if echoed is not None and not _matches(echoed, statements, output):
        return Stale(step.id, f"{step.sql_file} was changed after {step.out_file} was written: run it again.",
                     f"Run it again: {_fix(lab, step)}.")
    if changed_init(out_path, Path(workspace) / init_file):
        return Stale(step.id, f"{init_file} was changed after {step.out_file} was written: run the step again.",
                     f"Run it again: {_fix(lab, step)}.")
    return None


def _not_written(workspace: Path, lab: str, step: StepFiles, number: int | None) -> Stale | None:
    """The step with neither its SQL file nor its output (not even a link or a folder by those names): one
    message and one hint, to write the file first. None when the SQL file is there (the step's checks say to run
    it)."""
    if os.path.lexists(Path(workspace) / step.sql_file):
        return None
    which = f" (the guide's step {number})" if number is not None else ""
    return Stale(step.id, f"{step.out_file} does not exist, nor does {step.sql_file}: the step is not done yet.",
                 f"Write {step.sql_file}{which}, then run it: {_fix(lab, step)}.")


def _matches(echoed: Sequence[str], statements: Sequence[str], output: str) -> bool:
    """The output ran the file's statements: all of them, or those up to the one whose `[ERROR]` ended the run."""
    if len(echoed) > len(statements) or not all(_same(a, b) for a, b in zip(echoed, statements, strict=False)):
        return False
    return len(echoed) == len(statements) or "[ERROR]" in output


def stale_steps(workspace: Path, lab: str, steps: Sequence[StepFiles], *, init_file: str = "ddl.sql",
                guide: bool = False) -> dict[str, Stale]:
    """Per step id, why its output is stale or not written yet (only those steps). `steps` are all of the lab's,
    in its order; with `guide` (the lab has one, a `## Step N:` section per step in that order) the hint of a step
    not written yet names its number there."""
    found = {}
    for number, step in enumerate(steps, start=1):
        why = stale_step(workspace, lab, step, init_file=init_file, number=number if guide else None)
        if why is not None:
            found[step.id] = why
    return found
