"""JUnit XML (the Ant/Jenkins `testsuites` schema CI systems read): one testcase per check, a failed check a
`<failure>` holding its message and hint; a submission that is not gradable is one testcase with an `<error>`."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from flinklab.grading.formats.model import GradeResult, feedback


def junit(result: GradeResult) -> bytes:
    """The XML document (UTF-8, with its declaration)."""
    name = f"flinklab.{result.lab}"
    errors = 0 if result.gradable else 1
    failures = len(result.failures) if result.gradable else 0
    tests = len(result.checks) if result.gradable else 1
    counts = {"tests": str(tests), "failures": str(failures), "errors": str(errors), "skipped": "0",
              "time": f"{result.seconds:.3f}"}
    root = ET.Element("testsuites", name=name, **counts)
    suite = ET.SubElement(root, "testsuite", name=name, **counts)
    properties = ET.SubElement(suite, "properties")
    for key, value in (("lab", result.lab), ("learner", result.learner), ("gradable", str(result.gradable).lower()),
                       ("score", f"{result.score:g}"), ("max_score", f"{result.max_score:g}")):
        ET.SubElement(properties, "property", name=key, value=value)
    if not result.gradable:
        case = ET.SubElement(suite, "testcase", name="submission", classname=f"{result.lab}.submission", time="0")
        error = ET.SubElement(case, "error", message=result.message, type="NotGradable")
        error.text = result.message
    for check in result.checks if result.gradable else []:
        case = ET.SubElement(suite, "testcase", name=check.name, classname=f"{result.lab}.{check.step or 'lab'}",
                             time="0")
        ET.SubElement(case, "properties").extend([
            ET.Element("property", name="points", value=f"{check.points:g}"),
            ET.Element("property", name="score", value=f"{check.score:g}"),
        ])
        if not check.passed:
            text = feedback(check)
            failure = ET.SubElement(case, "failure", message=text.splitlines()[0] if text else "failed",
                                    type="CheckFailed")
            failure.text = text
    ET.SubElement(suite, "system-out").text = result.summary()
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
