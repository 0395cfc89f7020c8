"""The joins lab: regular, interval and event-time temporal joins over users, orders, shipments and rates.

Lab text: shared seeds 003 (steps) and 001 (concepts). Everything the lab knows lives in this package: the data
generator (`fixtures`), the independent answers (`reference`), the checks (`checks`) and report.json (`report`);
the reference SQL is `sql/`, the committed CSVs `data/` (package data), the plan pictures `pictures`.
"""

from __future__ import annotations

from flinklab.lab_api import FixtureSpec, Lab, LabPictures, Step
from flinklab.labs.joins import fixtures, pictures
from flinklab.labs.joins.checks import checks
from flinklab.labs.joins.report import REPORT_FIELDS, build_report

LAB = Lab(
    name="joins",
    title="Three joins over one order stream: regular, interval, event-time temporal",
    steps=(
        Step("count", "Row counts of the four sources (batch)", "count.sql", "count.out", mode="batch"),
        Step("regular", "Regular join: orders per tier", "regular.sql", "regular.out"),
        Step("interval", "Interval join: shipments within 2 h", "interval.sql", "interval.out"),
        Step("unshipped", "Outer interval join: orders not shipped within 2 h", "unshipped.sql", "unshipped.out"),
        Step("temporal", "Temporal join: the rate at order time", "temporal.sql", "temporal.out"),
        Step("latest", "The same view, regular join: totals at the latest rate", "latest.sql", "latest.out"),
        Step(
            "plans",
            "COMPILE PLAN of the three joins",
            "plans.sql",
            "plans.out",
            writes=("regular-plan.json", "interval-plan.json", "temporal-plan.json"),
        ),
    ),
    fixtures=FixtureSpec(files=fixtures.FILES, generate=fixtures.generate, default_seed=42),
    report_fields=REPORT_FIELDS,
    build_report=build_report,
    checks=checks,
    package=__name__,
    guide_file="guide.md",
    pictures=LabPictures(step=pictures.step_pictures),
    after=("windows",),  # event time, watermarks and ROW_NUMBER per window come first; the temporal view reuses them
)
