"""The grader image, built offline once, grades the test class under `--network none` in both layouts.

Gradescope's (/autograder/run_autograder as root, which drops to the user grader; the lab in
/autograder/source/lab) and PrairieLearn's (the image's entrypoint as the user grader; the lab in
/grade/data/data.json's params.lab). Each run's time from `docker run` to results.json is printed (not asserted:
no timed tests; scripts/bench.py measures it).
"""
# ruff: noqa: F811 - pytest fixtures imported from docker_fixtures are redefined as parameters

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from helpers.docker_fixtures import IMAGE_CACHE, docker_client, standin_image  # noqa: F401 - fixtures
from helpers.grade_class import KINDS, submission

pytestmark = pytest.mark.docker

#: the unbounded query is cancelled after it; a reference step takes 1-3 s in the image (a whole grading, the
#: cluster's start included, about 21 s), so this leaves a loaded machine room and the unbounded case 40 s less wait
STEP_TIMEOUT = 20


@pytest.fixture(scope="module")
def grader_image(docker_client, standin_image) -> str:
    from flinklab.cluster.grader_image import build_grader_image

    env = dict(os.environ, FLINKLAB_CACHE_DIR=str(IMAGE_CACHE))
    return build_grader_image(["joins"], env=env).tag


def _open(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o777)  # the container's user grader (uid 9998) writes there
    return path


def run_grader(client, image: str, layout: str, sub: Path, root: Path) -> tuple[dict, float, str]:
    """One `docker run --network none` of the grader on `sub` in `layout`: (results.json, seconds, log)."""
    common = {"network_mode": "none", "detach": True, "nano_cpus": 2_000_000_000,
              "environment": {"FLINKLAB_GRADE_ARGS": f"--step-timeout {STEP_TIMEOUT}"}}
    if layout == "gradescope":
        source = root / "source"
        source.mkdir(parents=True)
        (source / "lab").write_text("joins\n")
        results = _open(root / "results")
        volumes = {str(sub): {"bind": "/autograder/submission", "mode": "ro"},
                   str(source): {"bind": "/autograder/source", "mode": "ro"},
                   str(results): {"bind": "/autograder/results", "mode": "rw"}}
        kwargs = {"entrypoint": ["/autograder/run_autograder"], "user": "root"}
    else:
        grade = _open(root / "grade")
        (grade / "data").mkdir()
        (grade / "data" / "data.json").write_text(json.dumps({"params": {"lab": "joins"}}))
        results = _open(grade / "results")
        volumes = {str(sub): {"bind": "/grade/student", "mode": "ro"},
                   str(grade / "data"): {"bind": "/grade/data", "mode": "ro"},
                   str(results): {"bind": "/grade/results", "mode": "rw"}}
        kwargs = {"user": "grader"}
    started = time.monotonic()
    container = client.containers.run(image, volumes=volumes, **common, **kwargs)
    try:
        container.wait(timeout=600)
        seconds = time.monotonic() - started
        log = container.logs().decode(errors="replace")
    finally:
        container.remove(force=True)
    path = results / "results.json"
    assert path.is_file(), log[-3000:]
    return json.loads(path.read_text()), seconds, log


def _tests(data: dict, layout: str) -> dict[str, dict]:
    return {t["name"]: t for t in data.get("tests", [])}


def _passed(test: dict, layout: str) -> bool:
    return test["status"] == "passed" if layout == "gradescope" else test["points"] == test["max_points"]


def _feedback(test: dict, layout: str) -> str:
    return test["output"] if layout == "gradescope" else test["message"]


#: Every kind in one layout at least; the reference, an unbounded query, an empty submission and the attack in both
#: (what the layouts change is where the files are and what results.json holds, which these exercise)
CASES = [(kind, layout) for kind in KINDS for layout in ("gradescope", "prairielearn")
         if (kind, layout) not in {("mistake", "prairielearn"), ("forged", "gradescope")}]


@pytest.mark.parametrize("kind, layout", CASES, ids=[f"{k}-{layout}" for k, layout in CASES])
def test_the_image_grades_the_class(docker_client, grader_image, tmp_path, layout, kind):
    sub = submission(kind, tmp_path / "submission")
    for path in [sub, *sub.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    data, seconds, log = run_grader(docker_client, grader_image, layout, sub, tmp_path / "run")
    print(f"\n{layout} {kind}: docker run -> results.json in {seconds:.1f} s")
    tests = _tests(data, layout)
    if kind == "empty":
        if layout == "prairielearn":
            assert data["gradable"] is False and "none of the joins lab's SQL files" in data["message"]
        else:
            assert data["score"] == 0 and data["extra_data"]["gradable"] is False and data["tests"] == []
        return
    assert tests, log[-3000:]
    failed = {name: t for name, t in tests.items() if not _passed(t, layout)}
    score = data["score"]
    if kind == "reference":
        assert failed == {}, log[-3000:]
        assert score == (sum(t["max_score"] for t in tests.values()) if layout == "gradescope" else 1.0)
    elif kind == "mistake":
        assert {n.split(":")[0] for n in failed} == {"interval", "report"}
        assert any("`<` instead of BETWEEN" in _feedback(t, layout) for t in failed.values())
    elif kind == "forged":
        assert failed and {n.split(":")[0] for n in failed} <= {"count", "report"}
        assert any(n.startswith("count") for n in failed)
    elif kind == "unbounded":
        latest = [t for n, t in failed.items() if n.startswith("latest")]
        assert latest and all(f"did not finish in {STEP_TIMEOUT} s" in _feedback(t, layout) for t in latest)
        assert not any(n.startswith(("regular", "interval", "temporal")) for n in failed)
    elif kind == "attack":
        text = json.dumps(data)
        assert "root:x:0:0" not in text and "refused" in text
        assert any("ADD JAR" in _feedback(t, layout) for t in failed.values())
        assert any("user-defined function" in _feedback(t, layout) for t in failed.values())
        assert any("/etc/passwd" in _feedback(t, layout) for t in failed.values())


def test_the_image_runs_as_grader_without_network(docker_client, grader_image):
    out = docker_client.containers.run(grader_image, entrypoint=["sh", "-c", "id -u; ls /sys/class/net"],
                                       network_mode="none", remove=True).decode()
    uid, *interfaces = out.split()
    assert uid == "9998" and interfaces == ["lo"]


def test_the_course_workflow_runs_here(docker_client, grader_image, tmp_path):
    """The commands of `new-course`'s CI workflow, run here as the CI runs them, on a learner's repository whose
    SQL is the reference: the grader image prints full points."""
    import re
    import subprocess

    import yaml
    from helpers.grade_class import reference

    from flinklab.course.registry import get_lab
    from flinklab.usecases.newcourse import WORKFLOW, write_course

    course = tmp_path / "course"
    write_course(course, get_lab("joins"), image=grader_image)
    reference(course)  # the learner wrote the lab's SQL
    job = yaml.safe_load((course / WORKFLOW).read_text())["jobs"]["grade"]
    env = {**os.environ, **{k: str(v) for k, v in job["env"].items()}}
    printed = ""
    for step in job["steps"]:
        if "run" not in step:
            continue  # actions/checkout: the repository is here already
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=course, env=env, capture_output=True, text=True,
                              timeout=900, check=False)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        printed += done.stdout
    points = re.search(r"^points: ([\d.]+)/([\d.]+)$", printed, re.MULTILINE)
    assert points and float(points.group(1)) == float(points.group(2)) > 0, printed[-2000:]
