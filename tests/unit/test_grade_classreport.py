"""The class report from results files of every format: scores, step pass rates, the checks most often failed."""

from __future__ import annotations

import csv
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

from flinklab.grading.formats import FORMATS, GradeResult, write_result
from flinklab.grading.results import CheckResult
from flinklab.usecases.classreport import build_class_report, render_html


def result(learner: str, interval_ok: bool, temporal_ok: bool) -> GradeResult:
    return GradeResult(lab="joins", gradable=True, learner=learner, checks=[
        CheckResult("count: rows per source", 5, True, step="count"),
        CheckResult("interval: boundaries", 10, interval_ok, message="found no row with delay_s 7200",
                    hint="`<` instead of BETWEEN drops the shipments exactly 2 h after the order", step="interval"),
        CheckResult("temporal: rate at order time", 5, temporal_ok, message="wrong rates",
                    hint="FOR SYSTEM_TIME AS OF o.order_time", step="temporal"),
    ])


def class_dir(tmp_path):
    """Five learners, each results file in another format, plus one not gradable."""
    learners = [("ann", True, True), ("bob", False, True), ("cy", False, False), ("di", False, True),
                ("ed", True, False)]
    paths = []
    for (name, interval_ok, temporal_ok), fmt in zip(learners, FORMATS, strict=True):
        path = tmp_path / name / "results.json"
        write_result(result(name, interval_ok, temporal_ok), fmt, path)
        paths.append(path)
    path = tmp_path / "fay" / "results.json"
    write_result(GradeResult(lab="joins", gradable=False, learner="fay",
                             message="The submission holds none of the joins lab's SQL files."), "prairielearn", path)
    return [*paths, path]


def test_the_class_numbers(tmp_path):
    report = build_class_report(class_dir(tmp_path))
    assert len(report.results) == 6 and len(report.gradable) == 5
    assert report.step_pass == {"count": (5, 5), "interval": (2, 5), "temporal": (3, 5)}
    assert [(f.name, f.learners) for f in report.failed] == [("interval: boundaries", 3),
                                                              ("temporal: rate at order time", 2)]
    assert report.failed[0].hint.startswith("`<` instead of BETWEEN")
    scores = {r.learner: r.score for r in report.results}
    assert scores == {"ann": 20, "bob": 10, "cy": 5, "di": 10, "ed": 15, "fay": 0}


def test_the_cli_writes_html_and_csv(tmp_path):
    from flinklab.cli.app import app

    paths = class_dir(tmp_path / "class")
    html_file, csv_file = tmp_path / "out" / "class.html", tmp_path / "out" / "class.csv"
    outcome = CliRunner().invoke(app, ["class-report", *map(str, paths), "--html", str(html_file),
                                       "--csv", str(csv_file)])
    assert outcome.exit_code == 0, outcome.output
    assert "interval: boundaries" in outcome.output and "not gradable" in outcome.output
    rows = list(csv.DictReader(csv_file.open()))
    assert [(r["learner"], r["score"], r["gradable"]) for r in rows] == [
        ("ann", "20", "true"), ("bob", "10", "true"), ("cy", "5", "true"), ("di", "10", "true"),
        ("ed", "15", "true"), ("fay", "0", "false")]
    page = html_file.read_text()
    assert "<script" not in page and "http" not in page.replace("charset", "")  # self-contained


def test_a_file_that_is_not_a_result_is_one_line(tmp_path):
    from flinklab.cli.app import app

    bad = tmp_path / "notes.txt"
    bad.write_text("hello\n")
    outcome = CliRunner().invoke(app, ["class-report", str(bad)])
    assert outcome.exit_code == 2 and "not a results file" in outcome.output
    assert "Traceback" not in outcome.output


def test_the_page_renders_in_chromium(tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.fail("chromium is not installed: `scripts/install.sh --test` installs it (apt-get install chromium).")
    page = tmp_path / "class.html"
    page.write_text(render_html(build_class_report(class_dir(tmp_path / "class"))))
    shot = tmp_path / "artifacts" / "class-report.png"  # the test's artifact: look at it
    shot.parent.mkdir()
    done = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
                           f"--screenshot={shot}", "--window-size=1200,1100", page.as_uri()],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and shot.stat().st_size > 10_000, done.stderr[-2000:]
    dom = done.stdout
    assert dom.count("<tr>") == 1 + 2 + 1 + 3 + 1 + 6  # headers and rows of the three tables
    assert "interval: boundaries" in dom and "2/5" in dom and "not gradable" in dom
