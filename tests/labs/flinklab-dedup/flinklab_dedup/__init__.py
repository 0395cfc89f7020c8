"""The dedup lab: an event stream delivered at least once (retries repeat an event a few seconds later); keep the
first delivery of each event, then each user's latest action, both with ROW_NUMBER().

A lab outside flinklab: registered under the entry-point group `flinklab.labs` by this package's pyproject.toml.
"""

from __future__ import annotations

from flinklab.lab_api import FixtureSpec, Lab, Step
from flinklab_dedup import fixtures
from flinklab_dedup.checks import checks
from flinklab_dedup.report import REPORT_FIELDS, build_report

LAB = Lab(
    name="dedup",
    title="Deduplication with ROW_NUMBER(): keep the first delivery, keep the latest action",
    steps=(
        Step("first", "Keep-first: one row per event, its first delivery (batch)", "first.sql", "first.out",
             mode="batch"),
        Step("last", "Keep-last: each user's latest action (batch)", "last.sql", "last.out", mode="batch"),
    ),
    fixtures=FixtureSpec(files=(fixtures.FILE,), generate=fixtures.generate, default_seed=7),
    report_fields=REPORT_FIELDS,
    build_report=build_report,
    checks=checks,
    package=__name__,
    guide_file="guide.md",
)
