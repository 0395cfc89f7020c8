"""The learner's path through the course: which lab comes when, and what each needs first.

`flinklab labs` shows it; `flink-up`'s last line names the first lab. The order comes from the labs themselves
(`Lab.after`, see registry.course_order); nothing here knows a lab by name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from flinklab.course.registry import course_order
from flinklab.lab_api import Lab
from flinklab.settings import Settings


@dataclass(frozen=True)
class LabStart:
    """Where a lab stands on the learner's path: its place, the labs before it, and whether its workspace has the
    init file every step reads (`ddl.sql`)."""

    lab: Lab
    position: int  # 1-based
    after: tuple[str, ...]  # the installed labs this one comes after
    workspace: Path
    has_init: bool

    @property
    def place(self) -> str:
        """`start here` (the first), `after windows` (the labs it needs first), or `needs no other lab`."""
        if self.after:
            return f"after {', '.join(self.after)}"
        return "start here" if self.position == 1 else "needs no other lab"

    @property
    def first(self) -> str:
        """What the learner does first in this lab."""
        init = self.lab.init_file
        if self.has_init:
            return f"{init} is in {self.workspace}: the steps' files come next"
        return start_with_init(self.lab, self.workspace)


def start_with_init(lab: Lab, workspace: Path) -> str:
    """The line that tells a learner whose workspace has no init file to write it first."""
    return f"start with {lab.init_file}: it declares the tables every step reads, and {workspace} has none yet"


def lab_starts(labs: list[Lab], settings: Settings) -> list[LabStart]:
    """Each of `labs` on the learner's path, in the course's order."""
    ordered = course_order(labs)
    names = {lab.name for lab in ordered}
    starts = []
    for i, lab in enumerate(ordered, 1):
        workspace = settings.workspace(lab.name)
        has_init = os.path.isfile(workspace / lab.init_file)
        starts.append(LabStart(lab, i, tuple(a for a in lab.after if a in names), workspace, has_init))
    return starts
