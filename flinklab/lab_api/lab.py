"""A lab is data: steps, files, report fields, reference solution, fixtures, checks and what it can draw.

The definitions behind `flinklab.lab_api` (import them from there). A lab is a Python package exposing `LAB: Lab`,
registered under the entry-point group `flinklab.labs` (see flinklab.course.registry); its reference SQL is the
package's `sql/` folder and its CSVs its `data/` folder (package data, so a wheel has them). flinklab's own labs keep
theirs at the repository's top level, `sql/LAB/` and `fixtures/LAB/`, linked from their packages. The runner, the grader
and the backends know no lab by name.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from flinklab.errors import UsageError
from flinklab.grading.context import GradingContext
from flinklab.grading.results import CheckResult

if TYPE_CHECKING:  # the picture model loads with a picture: `flinklab --help` and `check` need none
    from flinklab.pictures.picture import Picture

Mode = Literal["batch", "streaming"]
#: One CSV's rows, already formatted as strings, in file order (what a data generator returns per file).
DataRows = list[tuple[str, ...]]
#: The data generator's signature: generate(seed, scale) -> {CSV file name: rows}, the same bytes for the same
#: seed and scale.
DataGenerator = Callable[[int, int], dict[str, DataRows]]
#: A lab's checks: grade the saved work in a GradingContext, every requirement one CheckResult.
ChecksHook = Callable[[GradingContext], Sequence[CheckResult]]
#: A lab's report builder: report.json's fields from the saved outputs in the workspace.
ReportHook = Callable[[Path], dict]
#: A lab's picture of one failed step for the HTML report (an empty list: no picture).
StepPicturesHook = Callable[[GradingContext, str], "list[Picture]"]


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
    generate: DataGenerator
    default_seed: int = 42


@dataclass(frozen=True)
class LabPictures:
    """What a lab can draw (every part optional).

    `step` draws a failed step for the HTML report of `flinklab check --html` (an empty list: no picture);
    `show` is `flinklab show LAB [STEP] [--from HH:MM] [--to HH:MM] [--svg FILE]`: it gets the settings, the step
    (or None), the range, the terminal width and the SVG path (or None) and returns a rich renderable and the SVG
    file it wrote (or None).
    """

    step: StepPicturesHook | None = None
    show: Callable[..., tuple[object, Path | None]] | None = None
    #: the one-line help of `flinklab show LAB` and of its STEP argument
    show_help: str = ""
    step_help: str = ""


@dataclass(frozen=True)
class Mistake:
    """A classic mistake the lab's checks must catch, declared in the lab's `sql/mistakes/expected.json` (the lab
    conformance suite runs each on a live cluster): `sql_file` (beside it) replaces `step`'s SQL, and then exactly
    the checks in `fails` fail, each hint containing its phrase. `may_pass` names checks of `fails` whose outcome on
    a live cluster depends on timing (how Flink interleaves sources), not on the query."""

    sql_file: str
    step: str
    fails: dict[str, str]
    may_pass: tuple[str, ...] = ()


@dataclass(frozen=True)
class Lab:
    """One lab. `package` is the lab's Python package (its `sql/` and `data/` folders are found beside it)."""

    name: str
    title: str
    steps: tuple[Step, ...]
    fixtures: FixtureSpec
    #: report.json field names, in order
    report_fields: tuple[str, ...]
    #: build the report from the saved outputs in the workspace, the way the lab tells a learner to
    build_report: ReportHook
    #: grade the saved work: every requirement one CheckResult
    checks: ChecksHook
    init_file: str = "ddl.sql"
    report_file: str = "report.json"
    #: extra files of the reference solution that are not a step's sql_file (e.g. none); ddl.sql is always included
    extra_solution_files: tuple[str, ...] = field(default=())
    #: the lab's Python package (`__name__` of the module defining LAB): sql/ and data/ are found in its folder
    package: str = ""
    #: a folder holding sql/ and data/ instead of the package's (a lab under construction, tests)
    home: Path | None = None
    pictures: LabPictures = field(default_factory=LabPictures)
    #: the guide (Markdown in the package, `##` per step), printed by `flinklab labs LAB`; "" when none
    guide_file: str = ""
    #: the labs a learner does before this one (the course's order: `flinklab labs` lists them first)
    after: tuple[str, ...] = ()

    def step(self, step_id: str) -> Step:
        for step in self.steps:
            if step.id == step_id:
                return step
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
    def root(self) -> Path:
        """The lab package's folder (its sql/ and data/ are package data)."""
        if self.home is not None:
            return self.home
        if not self.package:
            raise UsageError(f"Lab {self.name!r} names no package, so its SQL and data cannot be found.",
                             "Give the Lab package=__name__ (or home=FOLDER).")
        module = importlib.import_module(self.package)
        return Path(module.__file__ or "").resolve().parent

    @property
    def solution_dir(self) -> Path:
        """Where the reference SQL is: the package's sql/ folder (for a built-in lab in a checkout a link to the
        top-level sql/LAB/, resolved here; in a wheel a copy)."""
        return (self.root / "sql").resolve()

    @property
    def data_dir(self) -> Path:
        """Where the lab's committed CSVs are: the package's data/ folder (for a built-in lab in a checkout a link
        to the top-level fixtures/LAB/, resolved here; in a wheel a copy)."""
        return (self.root / "data").resolve()

    def data_files(self) -> list[Path]:
        """The lab's committed CSVs, in the order of `fixtures.files`."""
        return [self.data_dir / name for name in self.fixtures.files]

    @property
    def mistakes_dir(self) -> Path:
        """Where the lab's declared mistakes are: sql/mistakes/ (SQL files and expected.json)."""
        return self.solution_dir / "mistakes"

    def mistakes(self) -> list[Mistake]:
        """The lab's declared mistakes, in expected.json's order ([] when it declares none). Keys starting with
        `_` are comments."""
        path = self.mistakes_dir / "expected.json"
        if not path.is_file():
            return []
        table = json.loads(path.read_text(encoding="utf-8"))
        return [Mistake(name, case["step"], dict(case["fails"]), tuple(case.get("may_pass", ())))
                for name, case in table.items() if not name.startswith("_")]

    @property
    def solution_files(self) -> tuple[str, ...]:
        files = [self.init_file, *(s.sql_file for s in self.steps), *self.extra_solution_files]
        return tuple(dict.fromkeys(files))
