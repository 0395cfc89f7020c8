"""Every command the docs show runs: the blocks marked `<!-- docs: live -->`, on the session's cluster, each page's
from the top in a scratch home (its unit blocks, which may expect no cluster, run in the unit tests). The README's
first lab also has to leave a first step that passes its checks: a newcomer finds it from the README alone."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers.docs_console import ROOT, PageRun, blocks, learner_env, pages

pytestmark = pytest.mark.live

LIVE_PAGES = [page for page in pages() if page.name != "README.md" and any(b.kind == "live" for b in blocks(page))]


def _page_run(page: Path, cluster, home: Path) -> PageRun:
    home.mkdir()
    env = learner_env(home, data_dir=cluster.data_dir, state_dir=cluster.state_dir, cache_dir=cluster.cache_dir,
                      rest_port=cluster.rest_port, gateway_port=cluster.gateway_port)
    run = PageRun(home, env, cluster.data_dir)
    for block in blocks(page):
        if block.kind == "live":
            run.run(block)
    return run


@pytest.fixture(scope="module")
def readme_run(flink_cluster, tmp_path_factory: pytest.TempPathFactory) -> PageRun:
    return _page_run(ROOT / "README.md", flink_cluster, tmp_path_factory.mktemp("readme") / "home")


def test_the_readmes_first_lab_leaves_a_first_step_that_passes(readme_run: PageRun) -> None:
    report = readme_run.home / "check.json"
    subprocess.run(["flinklab", "check", "windows", "--json", str(report)], env=readme_run.env,
                   capture_output=True, timeout=120)
    tests = json.loads(report.read_text())["tests"]
    first = [t for t in tests if "tumble" in t["tags"]]
    assert first and all(t["status"] == "passed" for t in first), first
    assert any(t["status"] != "passed" for t in tests)  # and only that step: the rest is the learner's to write


@pytest.mark.parametrize("page", LIVE_PAGES, ids=[p.name for p in LIVE_PAGES])
def test_a_pages_commands_run_on_the_cluster(page: Path, flink_cluster, tmp_path: Path) -> None:
    _page_run(page, flink_cluster, tmp_path / "home")
