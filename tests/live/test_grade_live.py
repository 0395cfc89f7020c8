"""`flinklab grade` on a real cluster: the learner's SQL is rerun, never their outputs; an unbounded step is
cancelled with its job; what reaches outside the lab is refused and reads nothing."""

from __future__ import annotations

import json
import time

import pytest
from helpers.grade_class import KINDS, mistakes_dir, submission

from flinklab.course.registry import get_lab
from flinklab.usecases.grade import grade_submission

pytestmark = pytest.mark.live

#: kind -> its result, for the class report of the test class (a kind not graded yet is graded there)
GRADED: dict = {}


def grade(settings, kind, tmp_path, **kwargs):
    result = grade_submission(settings, get_lab("joins"), submission(kind, tmp_path / kind), **kwargs)
    GRADED[kind] = result
    return result


def test_the_reference_scores_everything(flink_cluster, tmp_path):
    result = grade(flink_cluster, "reference", tmp_path)
    assert result.gradable and result.checks
    assert [c.name for c in result.failures] == []
    assert result.score == result.max_score > 0
    assert {s.status for s in result.steps} == {"ok"}


def test_a_typical_mistake_gets_its_hint(flink_cluster, tmp_path):
    expected = json.loads((mistakes_dir() / "expected.json").read_text())
    result = grade(flink_cluster, "mistake", tmp_path)
    failed = {c.name: c for c in result.failures}
    assert set(failed) == set(expected["interval_less_than.sql"]["fails"])
    for name, phrase in expected["interval_less_than.sql"]["fails"].items():
        assert phrase in failed[name].hint or phrase in failed[name].message, name
    assert 0 < result.score < result.max_score


def test_correct_outputs_with_wrong_sql_score_what_the_sql_does(flink_cluster, tmp_path):
    result = grade(flink_cluster, "forged", tmp_path)
    failed = {c.step for c in result.failures}
    assert "count" in failed  # the forged count.out was never read: the rerun count.sql counts nothing
    assert failed <= {"count", "report"}  # the other steps are the reference's and pass (report: the counts)


def test_an_unbounded_step_is_cancelled_with_its_job(flink_cluster, tmp_path):
    from flinklab.cluster.base import resolve_rest_url
    from flinklab.flink.tls import cluster_rest

    result = grade(flink_cluster, "unbounded", tmp_path, step_timeout=15)
    latest = next(s for s in result.steps if s.step == "latest")
    assert latest.status == "timed out" and "did not finish in 15 s" in latest.error
    failed = [c for c in result.failures if c.step == "latest"]
    assert failed and all("did not finish in 15 s" in c.message and "never ends" in c.hint for c in failed)
    assert {s.status for s in result.steps if s.step != "latest"} == {"ok"}  # the other steps still ran
    rest = cluster_rest(resolve_rest_url(flink_cluster), flink_cluster.state_dir)
    deadline = time.monotonic() + 20
    while True:  # the cancel is asynchronous in Flink: the job leaves RUNNING within seconds
        running = [j for j in rest.get("/jobs/overview")["jobs"] if j["state"] in ("RUNNING", "CREATED")]
        if not running or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert running == []


def test_reading_files_jars_and_udfs_are_refused(flink_cluster, tmp_path):
    result = grade(flink_cluster, "attack", tmp_path)
    by_step = {s.step: s for s in result.steps}
    assert by_step["unshipped"].status == "refused" and "/etc/passwd" in by_step["unshipped"].error
    assert by_step["regular"].status == "refused" and "ADD JAR" in by_step["regular"].error
    assert by_step["temporal"].status == "refused" and "user-defined function" in by_step["temporal"].error
    text = json.dumps([c.__dict__ for c in result.checks])
    assert "root:x:0:0" not in text  # nothing of the file reached the feedback
    assert by_step["count"].status == "ok" and result.gradable


def test_the_class_report_of_the_test_class(flink_cluster, tmp_path):
    """The test class's results, each in another format, read by `flinklab class-report`, whose page a real
    headless Chromium renders (its screenshot is this test's artifact)."""
    import shutil
    import subprocess

    from typer.testing import CliRunner

    from flinklab.cli.app import app
    from flinklab.grading.formats import FORMATS, write_result

    paths = []
    for index, kind in enumerate(KINDS):
        result = GRADED.get(kind) or grade(flink_cluster, kind, tmp_path / "grading",
                                           **({"step_timeout": 15} if kind == "unbounded" else {}))
        path = tmp_path / "class" / kind / "results.json"
        write_result(result, FORMATS[index % len(FORMATS)], path)
        paths.append(path)
    page, shot = tmp_path / "class.html", tmp_path / "artifacts" / "class-report.png"
    outcome = CliRunner().invoke(app, ["class-report", *map(str, paths), "--html", str(page)])
    assert outcome.exit_code == 0, outcome.output
    reference = GRADED["reference"]
    assert f"{reference.max_score:g}/{reference.max_score:g}" in outcome.output  # the reference's full score
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "chromium is not installed: `scripts/install.sh --test` installs it"
    shot.parent.mkdir()
    done = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
                           f"--screenshot={shot}", "--window-size=1200,1600", page.as_uri()],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    dom = done.stdout
    for kind in KINDS:
        assert f"<td>{kind}</td>" in dom
    assert "not gradable" in dom and "did not finish in 15 s" in dom and "instead of BETWEEN" in dom
