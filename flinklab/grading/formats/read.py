"""Read a results file of any format flinklab writes back into a GradeResult (for the class report)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from flinklab.errors import UsageError
from flinklab.grading.formats.flinklab_json import FORMAT_TAG
from flinklab.grading.formats.model import FORMATS, GradeResult, StepOutcome, split_feedback
from flinklab.grading.results import CheckResult

_LIMIT = 16 << 20
#: the submission folders of Gradescope's and PrairieLearn's layouts, which name no learner
_PLATFORM_FOLDERS = ("submission", "student")  # a results file is small; a huge one is not ours
#: the names a results file gets from its format or platform, not from its learner (Gradescope's and PrairieLearn's
#: results.json, junit.xml, codegrade.out, a CI's output.txt, ...): such a file is named after its folder
DEFAULT_STEMS = frozenset({"results", "result", "grade", "grades", "output", "out", "stdout", "log", "flinklab",
                           *FORMATS})
_CHECK_LINE = re.compile(r"^(PASS|FAIL) (?:\[([^\]]*)\] )?(.*) \(([-\d.e+]+)/([-\d.e+]+)\)$")


def read_result(path: Path) -> GradeResult:
    """The GradeResult `path` holds (flinklab JSON, Gradescope, PrairieLearn, JUnit XML or a CodeGrade log);
    UsageError naming the file when it is none of them. A result without a learner's name (or graded in a
    platform's container, where the folder is always `submission` or `student`) gets the name of the folder holding
    it when the file's name is a format's (`results.json`, `junit.xml`, `codegrade.out`: a class's results are
    usually one folder per learner), else the file's stem."""
    return read_results([path])[0]


def read_results(paths: list[Path]) -> list[GradeResult]:
    """:func:`read_result` of each path; a file without a learner's name is named after its folder also when
    other files of the same name lie in other folders (`alice/feedback.txt`, `bob/feedback.txt`)."""
    results = [_unnamed(path) for path in paths]
    folders: dict[str, set[str]] = {}
    for path, result in zip(paths, results, strict=True):
        if not result.learner:
            folders.setdefault(path.stem, set()).add(path.parent.name)
    for path, result in zip(paths, results, strict=True):
        if not result.learner:
            by_folder = path.stem.lower() in DEFAULT_STEMS or len(folders[path.stem]) > 1
            result.learner = path.parent.name if by_folder else path.stem
    return results


def _unnamed(path: Path) -> GradeResult:
    """The result `path` holds, its learner "" when it names none (or a platform's folder)."""
    try:
        if path.stat().st_size > _LIMIT:
            raise UsageError(f"{path} is too large for a results file.", "Give the results files flinklab wrote.")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"Cannot read {path}: {getattr(exc, 'strerror', None) or exc}.",
                         "Give the results files `flinklab grade` wrote.") from None
    result = _parse(text, path)
    if result.learner in _PLATFORM_FOLDERS:  # graded in a platform's container: the name is the layout's folder
        result.learner = ""
    return result


def _parse(text: str, path: Path) -> GradeResult:
    stripped = text.lstrip()
    if stripped.startswith("<"):
        return _junit(stripped, path)
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except ValueError:
            raise _not_ours(path) from None
        if isinstance(data, dict):
            if data.get("format") == FORMAT_TAG:
                return _flinklab(data)
            if "gradable" in data:
                return _prairielearn(data)
            if "tests" in data or "score" in data:
                return _gradescope(data)
        raise _not_ours(path)
    return _codegrade(text, path)


def _not_ours(path: Path) -> UsageError:
    return UsageError(f"{path} is not a results file of `flinklab grade` (flinklab JSON, Gradescope, PrairieLearn, "
                      "JUnit XML or CodeGrade).", "Give the files `flinklab grade --results FILE` wrote.")


def _num(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _flinklab(data: dict) -> GradeResult:
    checks = [CheckResult(name=str(c.get("name", "")), points=_num(c.get("points")), passed=bool(c.get("passed")),
                          message=str(c.get("message", "")), hint=str(c.get("hint", "")), step=str(c.get("step", "")))
              for c in data.get("checks") or [] if isinstance(c, dict)]
    steps = [StepOutcome(step=str(s.get("step", "")), status=str(s.get("status", "")), seconds=_num(s.get("seconds")),
                         error=str(s.get("error", ""))) for s in data.get("steps") or [] if isinstance(s, dict)]
    return GradeResult(lab=str(data.get("lab", "")), gradable=bool(data.get("gradable", True)), checks=checks,
                       steps=steps, message=str(data.get("message", "")), seconds=_num(data.get("seconds")),
                       learner=str(data.get("learner", "")))


def _from_feedback(name: str, step: str, points: float, passed: bool, text: str) -> CheckResult:
    message, hint = split_feedback(text) if not passed else ("", "")
    return CheckResult(name=name, points=points, passed=passed, message=message, hint=hint, step=step)


def _gradescope(data: dict) -> GradeResult:
    extra = data.get("extra_data") if isinstance(data.get("extra_data"), dict) else {}
    checks = []
    for test in data.get("tests") or []:
        if not isinstance(test, dict):
            continue
        tags = test.get("tags") or []
        passed = test.get("status") == "passed" if "status" in test else _num(test.get("score")) >= _num(
            test.get("max_score"))
        checks.append(_from_feedback(str(test.get("name", "")), str(tags[0]) if tags else "",
                                     _num(test.get("max_score")), passed, str(test.get("output", ""))))
    gradable = bool(extra.get("gradable", True))
    output = str(data.get("output", ""))
    return GradeResult(lab=str(extra.get("lab", "")), gradable=gradable, checks=checks,
                       message="" if gradable else output.removeprefix("Not gradable: "),
                       seconds=_num(data.get("execution_time")), learner=str(extra.get("learner", "")))


def _prairielearn(data: dict) -> GradeResult:
    checks = []
    for test in data.get("tests") or []:
        if not isinstance(test, dict):
            continue
        description = str(test.get("description", ""))
        passed = _num(test.get("points")) >= _num(test.get("max_points"))
        checks.append(_from_feedback(str(test.get("name", "")), description.removeprefix("step "),
                                     _num(test.get("max_points")), passed, str(test.get("message", ""))))
    gradable = data.get("gradable") is not False
    return GradeResult(lab=str(data.get("lab", "")), gradable=gradable, checks=checks,
                       message="" if gradable else str(data.get("message", "")), learner=str(data.get("learner", "")))


def _junit(text: str, path: Path) -> GradeResult:
    try:
        root = ET.fromstring(text)
    except ET.ParseError:
        raise _not_ours(path) from None
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    if suite is None:
        raise _not_ours(path)
    props = {p.get("name"): p.get("value", "") for p in suite.findall("properties/property")}
    gradable = props.get("gradable", "true") != "false"
    checks, message = [], ""
    for case in suite.findall("testcase"):
        error = case.find("error")
        if error is not None:
            message = error.get("message", "")
            continue
        case_props = {p.get("name"): p.get("value", "") for p in case.findall("properties/property")}
        failure = case.find("failure")
        classname = case.get("classname", "")
        step = classname.split(".", 1)[1] if "." in classname else ""
        checks.append(_from_feedback(case.get("name", ""), "" if step == "lab" else step,
                                     float(case_props.get("points") or 1), failure is None,
                                     (failure.text or "") if failure is not None else ""))
    return GradeResult(lab=props.get("lab", suite.get("name", "").removeprefix("flinklab.")), gradable=gradable,
                       checks=checks, message=message, seconds=float(suite.get("time") or 0),
                       learner=props.get("learner", ""))


def _codegrade(text: str, path: Path) -> GradeResult:
    lines = text.rstrip("\n").splitlines()
    try:
        float(lines[-1])
    except (IndexError, ValueError):
        raise _not_ours(path) from None
    checks: list[CheckResult] = []
    detail: list[str] = []

    def close() -> None:
        if checks and not checks[-1].passed:
            checks[-1].message, checks[-1].hint = split_feedback("\n".join(detail))
        detail.clear()

    for line in lines[:-2]:
        found = _CHECK_LINE.match(line)
        if found:
            close()
            checks.append(CheckResult(name=found.group(3), points=float(found.group(5)),
                                      passed=found.group(1) == "PASS", step=found.group(2) or ""))
        elif line.startswith("    "):
            detail.append(line[4:])
    close()
    summary = lines[-2] if len(lines) >= 2 else ""
    gradable = not summary.startswith("Not gradable: ")
    return GradeResult(lab="", gradable=gradable, checks=checks,
                       message="" if gradable else summary.removeprefix("Not gradable: "))
