"""The gateway's completion extras (flinklab.gateway.completion) read from a real session's catalog on a real JVM:
tables and views with their columns, functions, options, and a catalog read again after a catalog statement."""

from __future__ import annotations

from typing import Any

import pytest

from flinklab.gateway.completion import extra_candidates, snapshot_of

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def session(in_process_service: Any) -> Any:
    session = in_process_service.open_session({"execution.runtime-mode": "batch"})
    session.execute("CREATE TABLE orders (order_id INT, amount DOUBLE) WITH ('connector' = 'datagen', "
                    "'number-of-rows' = '1')")
    session.execute("CREATE VIEW big AS SELECT * FROM orders WHERE amount > 10")
    session.execute("CREATE TEMPORARY VIEW tmp_v AS SELECT order_id FROM orders")
    return session


def test_snapshot_reads_tables_views_functions_and_options(session: Any) -> None:
    snapshot = snapshot_of(session)
    assert snapshot.tables == {"orders": ["order_id", "amount"]}
    assert snapshot.views["big"] == ["order_id", "amount"] and "tmp_v" in snapshot.views
    assert "AVG" in snapshot.functions or "avg" in snapshot.functions
    assert snapshot.options["execution.runtime-mode"] == "batch"


def test_candidates_from_the_session(session: Any) -> None:
    assert extra_candidates(session, "SELECT am FROM orders", len("SELECT am")) == ["amount"]
    assert extra_candidates(session, "SELECT * FROM bi", 16) == ["big", "bin"]  # the view, then the function
    assert extra_candidates(session, "SET 'execution.run", 18) == ["'execution.runtime-mode' = 'batch'"]


def test_a_new_table_is_seen_at_once(session: Any) -> None:
    snapshot_of(session)  # cached
    session.execute("CREATE TABLE later (zz INT) WITH ('connector' = 'datagen')")
    assert extra_candidates(session, "SELECT * FROM lat", 17) == ["later"]
    assert extra_candidates(session, "SELECT z FROM later", len("SELECT z")) == ["zz"]
