"""Every command the docs show runs: the blocks marked `<!-- docs: live -->`, on the session's cluster, each page
from the top in a scratch home (the unit blocks before them run too, since a page builds on them)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.docs_console import PageRun, blocks, learner_env, pages

pytestmark = pytest.mark.live

LIVE_PAGES = [page for page in pages() if any(b.kind == "live" for b in blocks(page))]


@pytest.mark.parametrize("page", LIVE_PAGES, ids=[p.name for p in LIVE_PAGES])
def test_a_pages_commands_run_on_the_cluster(page: Path, flink_cluster, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = learner_env(home, data_dir=flink_cluster.data_dir, state_dir=flink_cluster.state_dir,
                      cache_dir=flink_cluster.cache_dir, rest_port=flink_cluster.rest_port,
                      gateway_port=flink_cluster.gateway_port)
    run = PageRun(home, env, flink_cluster.data_dir)
    for block in blocks(page):
        if block.kind in ("unit", "live"):
            run.run(block)
