"""What a check is and what grading produces. Lab modules build CheckResults; renderers show them."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class CheckResult:
    """One lab requirement, graded.

    On failure `message` says what was expected and what was found, and `hint` names the likely mistake.
    """

    name: str  # short, stable, e.g. "interval: rows (0 s and 7200 s in, 7201 s out)"
    points: float
    passed: bool
    message: str = ""
    hint: str = ""
    step: str = ""  # the lab step this check belongs to (e.g. "interval"), for grouping and JUnit classname

    @property
    def score(self) -> float:
        return self.points if self.passed else 0.0


def passed(name: str, points: float, step: str = "", message: str = "") -> CheckResult:
    return CheckResult(name=name, points=points, passed=True, message=message, step=step)


def failed(name: str, points: float, message: str, hint: str = "", step: str = "") -> CheckResult:
    return CheckResult(name=name, points=points, passed=False, message=message, hint=hint, step=step)


@dataclass
class GradeReport:
    lab: str
    results: list[CheckResult] = field(default_factory=list)
    workspace: str = ""

    @property
    def score(self) -> float:
        return sum(r.score for r in self.results)

    @property
    def max_score(self) -> float:
        return sum(r.points for r in self.results)

    @property
    def all_passed(self) -> bool:
        return bool(self.results) and all(r.passed for r in self.results)

    @property
    def failures(self) -> list[CheckResult]:
        return [r for r in self.results if not r.passed]
