"""A lab is data: steps, files, report fields, reference solution, fixtures and checks.

Adding a lab means adding one module `flinklab/labs/<name>/` exposing `LAB: Lab` and one folder `sql/<name>/`;
the runner, the grader and the backends know no lab by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Literal

from flinklab.grading.checks import CheckResult

Mode = Literal["batch", "streaming"]
#: One CSV's rows, already formatted as strings, in file order.
Rows = list[tuple[str, ...]]


@dataclass(frozen=True)
class Step:
    """One step: run `sql-client.sh -i <init> -f <sql_file> > <out_file> 2>&1` in the workspace.

    `mode` is what the step's SQL must set (the reference solution's SET line); the runner does not force it:
    a learner who forgets `SET 'execution.runtime-mode'` gets the default (streaming), and the grader notices.
    `writes` are files the step creates that Flink refuses to overwrite (COMPILE PLAN targets): the runner removes
    them before running the step.
    """

    id: str
    title: str
    sql_file: str
    out_file: str
    mode: Mode = "streaming"
    writes: tuple[str, ...] = ()
    uses_init: bool = True
    #: the step's lesson is an error (e.g. reversed HOP arguments): its saved output must show `[ERROR]`
    expect_error: bool = False


@dataclass(frozen=True)
class FixtureSpec:
    """The lab's data: CSV file names and a deterministic generator."""

    files: tuple[str, ...]  # e.g. ("joins_users.csv", ...), written to fixtures/ and provisioned to the data dir
    #: generate(seed, scale) -> {file name: rows}; rows are string tuples written as CSV without header
    generate: Callable[[int, int], dict[str, Rows]]
    default_seed: int = 42


@dataclass
class GradingContext:
    """What checks get: where the saved work is and where the CSVs (the source of truth) are."""

    workspace: Path
    data_dir: Path

    def read(self, name: str, limit: int | None = None) -> str | None:
        """A saved file's text (UTF-8, CRLF normalised, at most `limit` bytes), or None when it does not exist.
        Raises FileReadError (one line naming the file) when it exists but cannot be read as text."""
        from flinklab.grading import files

        try:
            return files.read_text(self.workspace / name, limit=limit or files.MAX_OUTPUT_BYTES, label=name)
        except files.MissingFileError:
            return None


@dataclass(frozen=True)
class Lab:
    name: str
    title: str
    steps: tuple[Step, ...]
    fixtures: FixtureSpec
    #: report.json field names, in order
    report_fields: tuple[str, ...]
    #: build the report from the saved outputs in the workspace, the way the lab tells a learner to
    build_report: Callable[[Path], dict]
    #: grade the saved work: every requirement one CheckResult
    checks: Callable[[GradingContext], Sequence[CheckResult]]
    init_file: str = "ddl.sql"
    report_file: str = "report.json"
    #: extra files of the reference solution that are not a step's sql_file (e.g. none); ddl.sql is always included
    extra_solution_files: tuple[str, ...] = field(default=())

    def step(self, step_id: str) -> Step:
        for step in self.steps:
            if step.id == step_id:
                return step
        from flinklab.errors import UsageError

        raise UsageError(
            f"Lab {self.name!r} has no step {step_id!r}.",
            f"Steps: {', '.join(s.id for s in self.steps)}.",
        )

    @property
    def files(self) -> tuple[str, ...]:
        """Every workspace file the lab reads or the learner writes: SQL, outputs, compiled plans, the report."""
        names = [*self.solution_files, *(s.out_file for s in self.steps), *(w for s in self.steps for w in s.writes),
                 self.report_file]
        return tuple(dict.fromkeys(names))

    @property
    def solution_files(self) -> tuple[str, ...]:
        files = [self.init_file, *(s.sql_file for s in self.steps), *self.extra_solution_files]
        return tuple(dict.fromkeys(files))
