"""CodeGrade's Capture Points test: the program's output, whose last line is the score as a float in [0, 1]
(CodeGrade's default regex `\\f` captures it from the last 32 kB of output and multiplies it by the test's weight)."""

from __future__ import annotations

from flinklab.grading.formats.model import GradeResult, feedback


def codegrade(result: GradeResult) -> str:
    """Readable lines per check (its feedback indented under a failure), the summary, then the points line."""
    lines: list[str] = []
    for check in result.checks:
        verdict = "PASS" if check.passed else "FAIL"
        step = f"[{check.step}] " if check.step else ""
        lines.append(f"{verdict} {step}{check.name} ({check.score:g}/{check.points:g})")
        if not check.passed:
            lines.extend(f"    {line}" for line in feedback(check).splitlines())
    lines.append(result.summary())
    lines.append(points_line(result))
    return "\n".join(lines) + "\n"


def points_line(result: GradeResult) -> str:
    """The last line: the score's fraction with four decimals (0.0000 when not gradable)."""
    return f"{result.fraction:.4f}"
