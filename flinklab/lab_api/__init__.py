"""The lab API: the whole contract between flinklab and a lab. A lab imports this module (and the standard library,
and its own package), nothing else of flinklab; import-linter holds that in CI (pyproject.toml).

A lab is a Python package that exposes ``LAB: Lab`` and registers it under the entry-point group
``flinklab.labs``::

    [project.entry-points."flinklab.labs"]
    mylab = "flinklab_mylab:LAB"

``flinklab new-lab NAME`` writes a working skeleton of one. The contract, in the order a lab fills it in:

The lab and its steps
    ``Lab(name, title, steps, fixtures, report_fields, build_report, checks, package=__name__, guide_file=...,
    pictures=LabPictures(...))``; ``Step(id, title, sql_file, out_file, mode, writes, uses_init, expect_error)``;
    ``Mode`` ("batch" | "streaming"). The reference SQL is the package's ``sql/`` folder, the committed CSVs its
    ``data/`` folder, the guide a Markdown file with one ``## step`` section per step. ``Mistake`` rows in
    ``sql/mistakes/expected.json`` declare the classic mistakes its checks must catch (``Lab.mistakes()``); the
    lab conformance suite (tests/live/test_lab_conformance.py) runs the reference, each mistake, the guide and the
    generator of every installed lab.

The data generator
    ``FixtureSpec(files, generate, default_seed)`` where ``generate: DataGenerator`` is
    ``generate(seed: int, scale: int) -> dict[str, DataRows]`` (file name to rows of strings; the same bytes for
    the same seed and scale). Reading the CSVs back typed: ``read_csv(path, columns)`` with ``Column`` =
    ``(name, convert)`` and the converters ``text_cell``, ``int_cell``, ``decimal_cell``, ``time_cell(parse)``;
    ``render_csv(rows)`` is how flinklab writes them.

Report fields (report.json)
    ``ReportField`` rows, and ``report_field_names(fields)``, ``report_field_sources(fields)``,
    ``report_from_fields(workspace, fields)``; a lab's ``build_report: ReportHook`` is ``(workspace) -> dict``.

The check table (declarative checks, flinklab.grading.spec)
    ``LabChecks(load, steps, report, ...)`` with ``StepSpec`` per step and its checks ``Rows``, ``Changelog``,
    ``WholeNumbers``, ``ExpectedError``, ``Judge`` (a diagnosis in code, returning ``Verdict`` / ``ok`` /
    ``wrong``), ``Code`` (required SQL), ``Wording``, ``ReportSpec``. A lab's ``checks: ChecksHook`` is
    ``(GradingContext) -> Sequence[CheckResult]``; ``LabChecks`` is one.

Grading helpers a check may need
    ``GradingContext`` (workspace, data_dir, read), ``CheckResult``, ``passed``, ``failed``; the engine's views
    ``StepView``, ``Compared``; saved outputs ``read_step``, ``StepOutput``, ``ResultTable``, ``ErrorHints``,
    ``run_hint``, ``format_number``; changelogs ``final_rows``, ``fold_by_key``, ``added_rows``; values
    ``as_int``, ``as_decimal``, ``as_timestamp``, ``compare_rows``, ``numbers_close``, ``clip``; compiled plans
    ``load_plan``, ``Plan``, ``PlanError``, ``dig``, ``state_entries``; DDL ``tables_of``, ``scan_differences``,
    ``ddl_hint(reasons, DdlFiles(...))`` (the hint naming what ddl.sql lacks when an error comes from it; a check
    table gets it by giving ``LabChecks(reference_ddl=...)``, the lab's own ddl.sql);
    SQL text ``code_only``, ``strip_comments``, ``saved_sql(ctx, name)`` (a step's saved SQL without comments, for
    hints that name what the learner wrote); ``FileReadError``.

Picture hooks (all optional)
    ``LabPictures(step=StepPicturesHook, show=..., show_help, step_help)``; ``StepPicturesHook`` is
    ``(GradingContext, step) -> list[Picture]``; ``show(settings: Settings, step, time_from, time_to, width, svg)``
    returns a rich renderable and the SVG it wrote. Drawing helpers, loaded only when a picture is drawn:
    ``Picture``, ``Svg``, ``write_svg``, ``CHAR_PX``, ``MONO``, ``load_plan_graph``, ``plan_svg``.

The ground
    ``UsageError`` (a user's mistake, one line with a hint), ``Settings`` (for ``show``), ``FLINK_VERSION``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flinklab.errors import UsageError
from flinklab.flink.sql_split import code_only, strip_comments
from flinklab.grading.changelog import final_rows, fold_by_key
from flinklab.grading.context import GradingContext
from flinklab.grading.ddl import scan_differences, tables_of
from flinklab.grading.ddl_hints import DdlFiles, ddl_hint
from flinklab.grading.engine import Compared, StepView
from flinklab.grading.files import FileReadError
from flinklab.grading.outputs import ErrorHints, StepOutput, format_number, read_step, run_hint
from flinklab.grading.parse import ResultTable
from flinklab.grading.plans import Plan, PlanError, dig, load_plan, state_entries
from flinklab.grading.report_fields import ReportField, added_rows
from flinklab.grading.report_fields import build_report as report_from_fields
from flinklab.grading.report_fields import names as report_field_names
from flinklab.grading.report_fields import sources as report_field_sources
from flinklab.grading.results import CheckResult, failed, passed
from flinklab.grading.spec import (
    Changelog,
    Code,
    ExpectedError,
    Judge,
    LabChecks,
    ReportSpec,
    Rows,
    StepSpec,
    Verdict,
    WholeNumbers,
    Wording,
    ok,
    wrong,
)
from flinklab.grading.values import as_decimal, as_int, as_timestamp, clip, compare_rows, numbers_close
from flinklab.lab_api.csvdata import (
    Column,
    decimal_cell,
    int_cell,
    read_csv,
    render_csv,
    text_cell,
    time_cell,
)
from flinklab.lab_api.lab import (
    ChecksHook,
    DataGenerator,
    DataRows,
    FixtureSpec,
    Lab,
    LabPictures,
    Mistake,
    Mode,
    ReportHook,
    Step,
    StepPicturesHook,
)
from flinklab.lab_api.sqltext import saved_sql
from flinklab.settings import Settings
from flinklab.version import FLINK_VERSION

if TYPE_CHECKING:  # loaded on first use (module __getattr__): `flinklab --help` and `check` draw nothing
    from flinklab.pictures.picture import Picture
    from flinklab.pictures.plan import load_plan_graph
    from flinklab.pictures.plan_svg import plan_svg
    from flinklab.pictures.svg import CHAR_PX, MONO, Svg, write_svg

#: The drawing helpers, by the module that defines them; imported when a lab first asks for one.
_PICTURES = {
    "Picture": "flinklab.pictures.picture",
    "load_plan_graph": "flinklab.pictures.plan",
    "plan_svg": "flinklab.pictures.plan_svg",
    "Svg": "flinklab.pictures.svg",
    "write_svg": "flinklab.pictures.svg",
    "CHAR_PX": "flinklab.pictures.svg",
    "MONO": "flinklab.pictures.svg",
}


def __getattr__(name: str) -> Any:
    """The drawing helpers, loaded on first use so that grading and the CLI's start load no picture code."""
    if name in _PICTURES:
        import importlib

        return getattr(importlib.import_module(_PICTURES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CHAR_PX", "FLINK_VERSION", "MONO", "Changelog", "CheckResult", "ChecksHook", "Code", "Column", "Compared",
    "DataGenerator", "DataRows", "DdlFiles", "ErrorHints", "ExpectedError", "FileReadError", "FixtureSpec",
    "GradingContext", "Judge", "Lab", "LabChecks", "LabPictures", "Mistake", "Mode", "Picture", "Plan", "PlanError",
    "ReportField", "ReportHook", "ReportSpec", "ResultTable", "Rows", "Settings", "Step", "StepOutput",
    "StepPicturesHook", "StepSpec", "StepView", "Svg", "UsageError", "Verdict", "WholeNumbers", "Wording",
    "added_rows", "as_decimal", "as_int", "as_timestamp", "clip", "code_only", "compare_rows", "ddl_hint",
    "decimal_cell", "dig", "failed", "final_rows", "fold_by_key", "format_number", "int_cell", "load_plan",
    "load_plan_graph", "numbers_close", "ok", "passed", "plan_svg", "read_csv", "read_step", "render_csv",
    "report_field_names", "report_field_sources", "report_from_fields", "run_hint", "saved_sql", "scan_differences",
    "state_entries", "strip_comments", "tables_of", "text_cell", "time_cell", "write_svg", "wrong",
]
