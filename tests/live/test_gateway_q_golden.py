"""Flink's SQL gateway golden files replayed over REST in both row formats (tests/helpers/gateway_q.py does what
SqlGatewayRestEndpointStatementITCase does), against the test session's gateway and cluster.

Every case whose printed block differs from the file is listed in tests/data/gateway_q/known.yaml with its class
(`environment`: what differs is this machine, not the gateway; `version_skew`: the stored file is not 2.2.1's) and
why; the list is strict both ways: a new difference fails, and so does a listed case that now equals the file.
Each entry also says what exactly differs (`rewrite` pairs or `equal_until`), and the test checks that this is all
that differs, so an entry cannot hide a second difference.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml
from helpers.gateway_q import DATA, Replayer, load_cases

from flinklab.settings import Settings

pytestmark = pytest.mark.live

FILES = ("set.q", "insert.q", "begin_statement_set.q", "statement_set.q", "repeated_dql.q", "catalog_database.q",
         "table.q", "view.q")
FORMATS = ("JSON", "PLAIN_TEXT")
KNOWN = yaml.safe_load((DATA / "known.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def http(flink_cluster: Settings) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=flink_cluster.gateway_url, timeout=300) as client:
        yield client


def variables(settings: Settings, workdir: Path) -> dict[str, str]:
    """The ITCase's placeholders, fresh dirs per file and format (its @BeforeEach)."""
    values = {"$VAR_REST_PORT": str(settings.rest_port)}
    for name in ("STREAMING_PATH", "STREAMING_PATH2", "STREAMING_PATH3", "BATCH_PATH", "BATCH_PATH2",
                 "BATCH_CTAS_PATH", "STREAMING_PLAN_PATH"):
        path = workdir / name.lower()
        path.mkdir(parents=True, exist_ok=True)
        values[f"$VAR_{name}"] = str(path)
    # relative to the gateway's working directory in the ITCase; an absolute path here (see known.yaml)
    values["$VAR_STREAMING_PLAN_RELATIVE_PATH"] = values["$VAR_STREAMING_PLAN_PATH"]
    return values


def replay(http: httpx.Client, settings: Settings, name: str, row_format: str, workdir: Path) -> dict[int, str]:
    """{case index: our block} for every case of the file, differing or not."""
    cases = load_cases(name, variables(settings, workdir))
    replayer = Replayer(http, row_format)
    try:
        return {case.index: replayer.run(case.statement) for case in cases}
    finally:
        replayer.close()


@pytest.mark.parametrize("row_format", FORMATS)
@pytest.mark.parametrize("name", FILES)
def test_gateway_golden_file(http: httpx.Client, flink_cluster: Settings, tmp_path: Path, name: str,
                             row_format: str) -> None:
    cases = load_cases(name, variables(flink_cluster, tmp_path / "expected"))
    ours = replay(http, flink_cluster, name, row_format, tmp_path / "expected")
    differing = {c.index for c in cases if ours[c.index] != c.expected}
    known = {e["case"]: e for e in KNOWN.get(name, [])}
    report = os.environ.get("FLINKLAB_GATEWAY_Q_REPORT")
    if report:
        with open(report, "a", encoding="utf-8") as out:
            for c in cases:
                out.write(json.dumps({"file": name, "format": row_format, "case": c.index, "sql": c.statement,
                                      "equal": c.index not in differing, "expected": c.expected,
                                      "ours": ours[c.index]}) + "\n")
    new = {i: (cases[i].statement, cases[i].expected, ours[i]) for i in differing - set(known)}
    assert not new, f"differences not in known.yaml: {new}"
    fixed = set(known) - differing
    assert not fixed, f"known.yaml lists cases that now equal the file: {sorted(fixed)}"
    for index in differing:
        assert known[index]["class"] in ("environment", "version_skew"), known[index]
        assert known[index]["sql"] in cases[index].statement, known[index]
        assert explained(known[index], ours[index], cases[index].expected), (known[index], ours[index])


def explained(entry: dict, ours: str, expected: str) -> bool:
    """Whether the difference is exactly the one known.yaml describes: its `rewrite` pairs (our text, the file's)
    turn our block into the file's, or the blocks are equal up to `equal_until` (a plan section)."""
    if "rewrite" in entry:
        for our_text, file_text in entry["rewrite"]:
            if our_text not in ours:
                return False
            ours = ours.replace(our_text, file_text)
        return ours == expected
    marker = entry["equal_until"]
    return marker in ours and ours.split(marker)[0] == expected.split(marker)[0]
