"""Every installed lab keeps the lab contract (flinklab.lab_api), found through the registry as flinklab finds it (so
the dedup plug-in lab of tests/labs/ is here beside the built-in ones):

- its reference solution runs on a live cluster and passes every check, and report.json has the lab's fields;
- each mistake it declares (sql/mistakes/expected.json) fails exactly its checks, each hint naming the mistake;
- its guide names every step in a heading;
- its generator, at the default seed and scale, writes its committed CSVs byte for byte.

One solution run per lab, then only the mistaken step per case; the workspace is restored from a snapshot after each.
The guide and data cases need no cluster and are not marked live.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers.labtools import assert_fails_exactly, restore, run_with_sql, solve_and_snapshot

from flinklab.course.guide import guide_sections
from flinklab.course.registry import available_labs, get_lab
from flinklab.lab_api import Lab, Mistake
from flinklab.settings import Settings
from flinklab.usecases.check import grade_lab
from flinklab.usecases.fixtures import write_fixtures

LABS = available_labs()
MISTAKES = [(name, mistake) for name in LABS for mistake in get_lab(name).mistakes()]


def test_every_lab_declares_mistakes_and_the_test_lab_is_installed():
    assert {"joins", "windows", "dedup"} <= set(LABS)
    for name in LABS:
        lab = get_lab(name)
        declared = {m.sql_file for m in lab.mistakes()}
        assert declared, f"{name} declares no mistake in {lab.mistakes_dir}"
        assert declared == {p.name for p in lab.mistakes_dir.glob("*.sql")}, name
        for mistake in lab.mistakes():
            assert lab.step(mistake.step) and mistake.fails, (name, mistake)
            assert set(mistake.may_pass) <= set(mistake.fails), (name, mistake)


@pytest.mark.parametrize("name", LABS)
def test_the_guide_names_every_step(name: str):
    lab = get_lab(name)
    headings = [heading for heading, _ in guide_sections(lab)]
    unnamed = [step.id for step in lab.steps
               if not any(re.search(rf"(?<![\w-]){re.escape(step.id)}(?![\w-])", h) for h in headings)]
    assert unnamed == [], (name, headings)


@pytest.mark.parametrize("name", LABS)
def test_the_data_regenerates_byte_identical(name: str, tmp_path: Path):
    lab = get_lab(name)
    written = write_fixtures(lab, tmp_path)
    assert [p.name for p in written] == list(lab.fixtures.files)
    for path in lab.data_files():
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), (name, path.name)


_SOLVED: dict[str, Path] = {}


def _solved(lab: Lab, settings: Settings, client, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The lab's solved workspace's snapshot: the reference solution runs once per lab per session."""
    if lab.name not in _SOLVED:
        _, _SOLVED[lab.name] = solve_and_snapshot(settings, lab, client, tmp_path_factory)
    else:
        restore(settings.workspace(lab.name), _SOLVED[lab.name])
    return _SOLVED[lab.name]


@pytest.mark.live
@pytest.mark.parametrize("name", LABS)
def test_the_reference_passes_every_check(name: str, flink_cluster: Settings, sql_client, tmp_path_factory):
    lab = get_lab(name)
    _solved(lab, flink_cluster, sql_client, tmp_path_factory)
    report = grade_lab(flink_cluster, lab)
    assert [(r.name, r.message, r.hint) for r in report.failures] == []
    assert report.score == report.max_score > 0
    written = json.loads((flink_cluster.workspace(name) / lab.report_file).read_text(encoding="utf-8"))
    assert list(written) == list(lab.report_fields)


@pytest.mark.live
@pytest.mark.parametrize(("name", "mistake"), MISTAKES, ids=[f"{n}:{m.sql_file}" for n, m in MISTAKES])
def test_each_mistake_fails_exactly_its_checks(name: str, mistake: Mistake, flink_cluster: Settings, sql_client,
                                               tmp_path_factory):
    lab = get_lab(name)
    snapshot = _solved(lab, flink_cluster, sql_client, tmp_path_factory)
    workspace = flink_cluster.workspace(name)
    try:
        sql = (lab.mistakes_dir / mistake.sql_file).read_text(encoding="utf-8")
        run_with_sql(flink_cluster, lab, mistake.step, sql, sql_client)
        report = grade_lab(flink_cluster, lab)
        fails = {check: phrase for check, phrase in mistake.fails.items() if check not in mistake.may_pass}
        may_fail = {check: mistake.fails[check] for check in mistake.may_pass}
        assert_fails_exactly({r.name: r for r in report.failures}, fails, may_fail)
    finally:
        restore(workspace, snapshot)
