"""The dedup lab's checks as a table (flinklab.grading.spec): each step's rows against the reference, with the
mistakes whose rows name the hint, and the report's fields. No code: every mistake of this lab is a row set."""

from __future__ import annotations

from flinklab.lab_api import LabChecks, ReportSpec, Rows, StepSpec, Wording
from flinklab_dedup import reference as ref
from flinklab_dedup.report import REPORT_FIELDS, SOURCES

CHECKS = LabChecks(
    lab="dedup",
    load=ref.load,
    wording=Wording(error_hint="Fix the error the output shows, then run the step again.",
                    rows_message="expected {n_expected} rows ({columns}): {diff}."),
    steps=(
        StepSpec("first", ("event_id", "user_id", "action", "ts"), (
            Rows("first: one row per event, its first delivery", 3, ref.first_deliveries,
                 "Number each event's deliveries with ROW_NUMBER() OVER (PARTITION BY event_id ORDER BY ts ASC) and "
                 "keep rn = 1.",
                 mistakes=(
                     (lambda events: ref.keep(events, 0, latest=True),
                      "ORDER BY ts DESC keeps each event's last delivery; keep-first orders by ts ASC."),
                     (lambda events: events, "Every delivery is still there: keep only rn = 1 in the outer query."),
                 )),
        )),
        StepSpec("last", ("user_id", "action", "ts"), (
            Rows("last: each user's latest action", 3, ref.latest_actions,
                 "ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts DESC), then keep rn = 1.",
                 mistakes=(
                     (lambda events: [(u, a, t) for _, u, a, t in ref.keep(events, 1, latest=False)],
                      "ORDER BY ts ASC keeps each user's first action; the latest needs ts DESC."),
                     (lambda events: [(u, a, t) for _, u, a, t in ref.keep(events, 0, latest=True)],
                      "One row per event: partition by user_id to keep one row per user."),
                 )),
        )),
    ),
    report=ReportSpec(REPORT_FIELDS, ref.report, SOURCES, hint="Count the rows of {source}."),
)

#: What `Lab.checks` calls.
checks = CHECKS
