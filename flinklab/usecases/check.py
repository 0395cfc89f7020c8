"""Grade a lab's saved work. Never asks the cluster: the saved files and the CSVs are all it reads."""

from __future__ import annotations

import gc
import os
from pathlib import Path

from flinklab.errors import FlinklabError
from flinklab.grading.context import GradingContext
from flinklab.grading.freshness import Stale, StepFiles, stale_steps
from flinklab.grading.results import CheckResult, GradeReport, failed
from flinklab.lab_api import Lab
from flinklab.settings import Settings
from flinklab.usecases.provision import provision_missing


def lab_files(settings: Settings, lab: Lab) -> list[Path]:
    """Every file of the lab the grader reads or the learner writes: the workspace's and the data dir's CSVs."""
    workspace = settings.workspace(lab.name)
    return [*(workspace / name for name in lab.files), *(settings.data_dir / name for name in lab.fixtures.files)]


def provision_for_grading(settings: Settings, lab: Lab) -> list[Path]:
    """The lab's CSVs absent from the data dir, copied there from its package (a lab installed after `flink-up`):
    the grader computes the expected answers from them. Only for a workspace to grade; returns what was copied."""
    if not settings.workspace(lab.name).is_dir():
        return []
    return provision_missing(settings, lab)


def grading_context(settings: Settings, lab: Lab) -> GradingContext:
    """The context checks get; FlinklabError (exit 2) when grading cannot run at all."""
    workspace = settings.workspace(lab.name)
    if not workspace.is_dir():
        raise FlinklabError(
            f"No workspace for {lab.name!r} at {workspace}: nothing to grade.",
            f"Write the lab's files there and run `flinklab run {lab.name}` (or --workspace to point elsewhere).",
        )
    # Absent files only: a directory or a broken link in their place gets the reader's own message.
    missing = [name for name in lab.fixtures.files if not os.path.lexists(settings.data_dir / name)]
    if missing:
        raise FlinklabError(
            f"The lab data {', '.join(missing)} does not exist in {settings.data_dir}; the grader computes the "
            "expected answers from it.",
            "`flink-up` provisions the data dir (or pass --data-dir / FLINKLAB_DATA_DIR).",
        )
    return GradingContext(workspace=workspace, data_dir=settings.data_dir)


def grade_lab(settings: Settings, lab: Lab) -> GradeReport:
    """Run every check of `lab` against its workspace."""
    ctx = grading_context(settings, lab)
    # The checks build millions of small lists and no reference cycles at 100x data; the cycle collector's full
    # passes over that heap would make grading superlinear (measured: half the time at scale 100).
    collecting = gc.isenabled()
    gc.disable()
    try:
        results = list(lab.checks(ctx))
    except FlinklabError:
        raise
    except Exception as exc:  # a crash inside a check is a bug; say so in one line instead of a traceback
        raise FlinklabError(
            f"Grading {lab.name!r} crashed: {type(exc).__name__}: {exc}",
            "This is a bug in flinklab's checks; please report it with your workspace files.",
        ) from exc
    finally:
        if collecting:
            gc.enable()
    stale = stale_steps(ctx.workspace, lab.name, [StepFiles(s.id, s.sql_file, s.out_file) for s in lab.steps],
                        init_file=lab.init_file, guide=bool(lab.guide_file))
    return GradeReport(lab=lab.name, results=_stale_failed(results, stale), workspace=str(ctx.workspace))


def _stale_failed(results: list[CheckResult], stale: dict[str, Stale]) -> list[CheckResult]:
    """Every check of a stale step fails with why (its SQL file or ddl.sql is not what wrote its output, or the
    step is not written yet): grading an output of other SQL would pass or fail work the learner no longer has."""
    return [failed(r.name, r.points, stale[r.step].message, stale[r.step].hint, step=r.step) if r.step in stale
            else r for r in results]
