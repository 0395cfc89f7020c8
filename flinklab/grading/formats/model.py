"""The one result model every format is written from: a graded (or not gradable) submission."""

from __future__ import annotations

from dataclasses import dataclass, field

from flinklab.grading.results import CheckResult

#: The formats `flinklab grade --format` writes, in the order its help lists them.
FORMATS = ("gradescope", "prairielearn", "junit", "json", "codegrade")


@dataclass
class StepOutcome:
    """How one step of the submission ran in the grader."""

    step: str
    status: str  # ok, failed, skipped, timed out, refused
    seconds: float = 0.0
    error: str = ""


@dataclass
class GradeResult:
    """A submission, graded: its checks (the lab's, with their points and hints), or why it is not gradable."""

    lab: str
    gradable: bool
    checks: list[CheckResult] = field(default_factory=list)
    steps: list[StepOutcome] = field(default_factory=list)
    message: str = ""  # why it is not gradable; else a one-line summary is made from the checks
    seconds: float = 0.0  # wall time of the grading
    learner: str = ""  # who submitted (a folder name, a Gradescope submission): for the class report

    @property
    def score(self) -> float:
        return sum(c.score for c in self.checks) if self.gradable else 0.0

    @property
    def max_score(self) -> float:
        return sum(c.points for c in self.checks)

    @property
    def fraction(self) -> float:
        """The score in [0, 1] (0 when nothing was gradable or nothing could be earned)."""
        return min(1.0, max(0.0, self.score / self.max_score)) if self.gradable and self.max_score > 0 else 0.0

    @property
    def failures(self) -> list[CheckResult]:
        return [c for c in self.checks if not c.passed]

    def summary(self) -> str:
        """One line a learner reads first."""
        if not self.gradable:
            return f"Not gradable: {self.message}"
        n = len(self.checks)
        head = f"All {n} checks passed." if n and not self.failures else f"{len(self.failures)} of {n} checks failed."
        return f"{head} Points {self.score:g}/{self.max_score:g}." + (f" {self.message}" if self.message else "")


def feedback(check: CheckResult) -> str:
    """What a failed check tells the learner: what was expected and found, then the hint."""
    parts = [check.message.strip()] if check.message.strip() else []
    if check.hint.strip():
        parts.append(f"hint: {check.hint.strip()}")
    return "\n".join(parts)


def split_feedback(text: str) -> tuple[str, str]:
    """:func:`feedback` read back: (message, hint)."""
    message, sep, hint = text.partition("\nhint: ")
    if not sep and text.startswith("hint: "):
        return "", text[len("hint: "):]
    return message, hint
