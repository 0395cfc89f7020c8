"""Flink's gateway golden files as tests/helpers/gateway_q.py reads them (no JVM): every file parses into as many
cases as it has tagged blocks, each file keeps its Apache license header, SOURCES.md lists every file, known.yaml
names only cases that exist with a class it allows, and the ITCase's plan normalisation does what
TableTestUtil's does."""

from __future__ import annotations

import re

import pytest
import yaml
from helpers.gateway_q import DATA, load_cases, normalize_plan

FILES = sorted(p.name for p in DATA.glob("*.q"))


@pytest.mark.parametrize("name", FILES)
def test_file_parses_into_one_case_per_tagged_block(name: str) -> None:
    text = (DATA / name).read_text(encoding="utf-8")
    assert "Licensed to the Apache Software Foundation (ASF)" in text
    tags = len(re.findall(r"^!(ok|info|error)$", text, flags=re.MULTILINE))
    cases = load_cases(name, {})
    assert len(cases) == tags == text.count("\n!output\n")
    for case in cases:
        assert case.statement.rstrip().endswith(";"), case.statement
        assert case.expected.startswith("!output\n") and case.expected.rstrip().endswith(("!ok", "!info", "!error"))


def test_sources_lists_every_file_and_known_names_real_cases() -> None:
    sources = (DATA / "SOURCES.md").read_text(encoding="utf-8")
    known = yaml.safe_load((DATA / "known.yaml").read_text(encoding="utf-8"))
    for name in FILES:
        assert f"`{name}`" in sources, name
    for name, entries in known.items():
        cases = load_cases(name, {})
        for entry in entries or []:
            assert entry["class"] in ("environment", "version_skew"), entry
            assert entry["sql"] in cases[entry["case"]].statement, entry
            assert ("rewrite" in entry) != ("equal_until" in entry), entry  # what differs, checked by the live test


def test_plan_normalisation_is_table_test_utils() -> None:
    plan = ('== Physical Execution Plan ==\n{\n  "nodes" : [ {\n    "id" : 17,\n    "type" : "Source: orders[12]",\n'
            '    "contents" : "[12]:TableSourceScan(table=[[a]])",\n    "predecessors" : [ {\n      "id" : 16\n'
            '    } ]\n  } ]\n}\n')
    assert normalize_plan(plan) == (
        '== Physical Execution Plan ==\n{\n  "nodes" : [ {\n    "id" : ,\n    "type" : "Source: orders[]",\n'
        '    "contents" : "[]:TableSourceScan(table=[[a]])",\n    "predecessors" : [ {\n      "id" : \n    } ]\n'
        '  } ]\n}')
    # a plan's own brackets are kept: only `[digits]` after a "type" or at the start of "contents" go
    assert normalize_plan("Calc(select=[user, product])\n") == "Calc(select=[user, product])"
    assert normalize_plan('"contents" : "orders2[79]: Writer",') == '"contents" : "orders2[]: Writer",'
    assert normalize_plan('"contents" : "[3]:Calc(select=[a])",') == '"contents" : "[]:Calc(select=[a])",'
