"""The warm-up plans' manifest (flinklab.flink.warm_plans): what it names, and which clusters it fits. Submitting
them to a real cluster is tests/live/test_gateway_warmup_live.py's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flinklab.flink.warm_plans import MANIFEST, Manifest, read_manifest, write_manifest

PLANS = Manifest("/data/flinklab-warm-up.csv", 1, "2.2.1", ("0-streaming.bin", "1-batch.bin"))
CLUSTER = {"flink-version": "2.2.1", "slots-total": 4}


def test_a_manifest_reads_back_as_written(tmp_path: Path) -> None:
    write_manifest(tmp_path, PLANS)
    assert read_manifest(tmp_path) == PLANS
    assert [path.name for path in tmp_path.iterdir()] == [MANIFEST]  # its temporary file renamed into place


@pytest.mark.parametrize("text", ["", "{", "[]", '{"csvPath": "/x"}',
                                  '{"csvPath": "/x", "parallelism": "one", "flinkVersion": "2.2.1", "files": []}',
                                  '{"csvPath": "/x", "parallelism": 1, "flinkVersion": "2.2.1", "files": ["../x"]}',
                                  '{"csvPath": "/x", "parallelism": 1, "flinkVersion": "2.2.1", "files": [".m"]}'])
def test_a_manifest_that_is_not_one_of_ours_is_none(tmp_path: Path, text: str) -> None:
    (tmp_path / MANIFEST).write_text(text)
    assert read_manifest(tmp_path) is None


def test_no_manifest_is_none(tmp_path: Path) -> None:
    assert read_manifest(tmp_path / "missing") is None


@pytest.mark.parametrize(("csv_path", "cluster", "fits"), [
    (PLANS.csv_path, CLUSTER, True),
    (PLANS.csv_path, {**CLUSTER, "slots-total": 1}, True),
    ("/elsewhere/flinklab-warm-up.csv", CLUSTER, False),  # another data dir
    (PLANS.csv_path, {**CLUSTER, "flink-version": "2.1.0"}, False),  # another Flink
    (PLANS.csv_path, {**CLUSTER, "slots-total": 0}, False),  # no slot for it
    (PLANS.csv_path, {"flink-version": "2.2.1"}, False),
])
def test_plans_fit_only_the_cluster_and_data_dir_they_were_made_for(csv_path: str, cluster: dict,
                                                                     fits: bool) -> None:
    assert PLANS.fits(csv_path, cluster) is fits
    wide = Manifest(PLANS.csv_path, 2, "2.2.1", PLANS.files)
    assert wide.fits(PLANS.csv_path, {**CLUSTER, "slots-total": 1}) is False  # parallelism 2 on one slot


def test_the_manifest_is_json_a_person_can_read(tmp_path: Path) -> None:
    write_manifest(tmp_path, PLANS)
    assert json.loads((tmp_path / MANIFEST).read_text()) == {
        "csvPath": PLANS.csv_path, "parallelism": 1, "flinkVersion": "2.2.1", "files": list(PLANS.files)}
