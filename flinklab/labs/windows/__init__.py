"""The windows lab: TUMBLE, HOP, CUMULATE and SESSION window TVFs, window aggregation and window Top-N over 119 orders.

Lab text: shared seeds 000 (Japanese) and 002 (Chinese), concepts and the closing "what the lab does"; the guide is
`guide.md`. Everything the lab knows lives in this package: the data generator (`fixtures`), the
independent answers (`reference`), the checks (`checks`) and report.json (`report`); the reference SQL is
`sql/`, the committed CSV `data/` (package data), the timeline pictures `pictures`.
"""

from __future__ import annotations

from flinklab.lab_api import FixtureSpec, Lab, LabPictures, Step
from flinklab.labs.windows import fixtures
from flinklab.labs.windows.checks import checks
from flinklab.labs.windows.pictures import hooks
from flinklab.labs.windows.report import REPORT_FIELDS, build_report

LAB = Lab(
    name="windows",
    title="Window TVFs over one order stream: TUMBLE, HOP, CUMULATE, SESSION and window Top-N",
    steps=(
        Step("tumble", "TUMBLE 10 min: every order with its window columns", "tumble.sql", "tumble.out"),
        Step("tumble_agg", "Orders and revenue per shop and 10-minute window", "tumble_agg.sql", "tumble_agg.out"),
        Step("hop", "HOP slide 5 min, size 10 min: orders per window", "hop.sql", "hop.out"),
        Step(
            "hop_reversed",
            "HOP with slide and size swapped: Flink's rejection",
            "hop_reversed.sql",
            "hop_reversed.out",
            expect_error=True,
        ),
        Step("cumulate", "CUMULATE step 10 min, size 1 h: orders and revenue so far", "cumulate.sql", "cumulate.out"),
        Step("session", "SESSION gap 5 min per shop", "session.sql", "session.out"),
        Step("top_shops", "Window Top-N: 2 shops by revenue per 10 minutes", "top_shops.sql", "top_shops.out"),
        Step("top_orders", "Window Top-N on the TVF: 3 largest orders per 30 minutes", "top_orders.sql",
             "top_orders.out"),
    ),
    fixtures=FixtureSpec(files=(fixtures.FILE,), generate=fixtures.generate, default_seed=42),
    report_fields=REPORT_FIELDS,
    build_report=build_report,
    checks=checks,
    package=__name__,
    guide_file="guide.md",
    pictures=LabPictures(
        step=hooks.step_pictures, show=hooks.show,
        show_help="The windows lab's orders and windows on an event-time axis; your saved output against the "
                  "expected one.",
        step_help="tumble, tumble_agg, hop, cumulate, session, top_shops or top_orders (default: the four window "
                  "kinds).",
    ),
)
