"""flinklab.dbapi on a real cluster, used by the libraries that take any DB-API connection: pandas.read_sql and
jupysql (`%sql` in a real kernel). Values are compared with ones computed from the lab's CSVs in plain Python."""

from __future__ import annotations

import csv
import json
import time
import warnings
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from helpers.notebooks import code_notebook, jupyter_dirs, run_notebook, text, tracebacks

import flinklab.dbapi as dbapi
from flinklab.access import read_token
from flinklab.cluster.base import resolve_rest_url
from flinklab.course.registry import get_lab
from flinklab.course.textpaths import rewrite_paths
from flinklab.dbapi.connection import open_connection
from flinklab.flink.rest import FlinkRest
from flinklab.flink.sql_split import split_statements
from flinklab.settings import Settings

pytestmark = pytest.mark.live


@pytest.fixture(autouse=True)
def _jupyter_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Jupyter's and IPython's dirs for this process too (connection files): never the user's."""
    for name, value in jupyter_dirs(tmp_path).items():
        monkeypatch.setenv(name, value)


@pytest.fixture(scope="module")
def ddl(flink_cluster: Settings) -> list[str]:
    lab = get_lab("joins")
    sql = rewrite_paths((lab.solution_dir / lab.init_file).read_text(encoding="utf-8"), flink_cluster.data_dir,
                        flink_cluster.workspace_root)
    return split_statements(sql)


def _orders_per_currency(settings: Settings) -> Counter[str]:
    with (settings.data_dir / "joins_orders.csv").open(encoding="utf-8", newline="") as f:
        return Counter(row[2] for row in csv.reader(f))


def test_pandas_read_sql_on_the_default_gateway(flink_cluster: Settings, ddl: list[str]) -> None:
    with open_connection(flink_cluster, session_config={"execution.runtime-mode": "batch"}) as conn:
        cur = conn.cursor()
        for statement in ddl:
            cur.execute(statement)
            assert cur.description is None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # pandas: "other DBAPI2 objects are not tested"
            frame = pd.read_sql("SELECT currency, COUNT(*) AS n FROM orders WHERE currency <> ? GROUP BY currency",
                                conn, params=("nothing",))
        assert dict(zip(frame["currency"], frame["n"], strict=True)) == dict(_orders_per_currency(flink_cluster))
        cur.execute("SELECT currency, COUNT(*) AS n, SUM(amount) AS total FROM orders GROUP BY currency")
        assert [d[:2] for d in cur.description] == [("currency", "STRING"), ("n", "BIGINT NOT NULL"),
                                                   ("total", "DECIMAL(38, 2)")]
        assert cur.description[2][1] == dbapi.NUMBER
        first = cur.fetchone()
        rest = cur.fetchall()
        assert cur.rowcount == 1 + len(rest) == len(_orders_per_currency(flink_cluster))
        assert first is not None and str(type(first[2]).__name__) == "Decimal"
        with pytest.raises(dbapi.ProgrammingError, match="Column 'nope' not found"):
            cur.execute("SELECT nope FROM orders")


def test_an_unbounded_query_streams_through_fetchmany_and_close_cancels_its_job(flink_cluster: Settings) -> None:
    rest = FlinkRest(resolve_rest_url(flink_cluster))
    before = {j["jid"] for j in rest.get("/jobs/overview")["jobs"]}
    conn = dbapi.connect(flink_cluster.gateway_url, token=read_token(flink_cluster.state_dir))
    try:
        cur = conn.cursor()
        cur.execute("CREATE TEMPORARY TABLE ticks (id INT) WITH ('connector' = 'datagen', "
                    "'rows-per-second' = '50', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
                    "'fields.id.end' = '1000000')")
        cur.execute("SELECT id FROM ticks")
        rows = cur.fetchmany(20) + cur.fetchmany(5)
        assert rows == [(i,) for i in range(1, 26)] and set(cur.kinds) == {"+I"}
        job = next(j for j in rest.get("/jobs/overview")["jobs"] if j["jid"] not in before)
        assert job["state"] == "RUNNING"
        cur.close()
        deadline = time.monotonic() + 60
        while {j["jid"]: j["state"] for j in rest.get("/jobs/overview")["jobs"]}[job["jid"]] != "CANCELED":
            assert time.monotonic() < deadline
            time.sleep(0.2)  # polling Flink's REST API for the job's state
        with pytest.raises(dbapi.InterfaceError):
            cur.fetchone()
    finally:
        conn.close()


def test_jupysql_runs_queries_through_the_driver(flink_cluster: Settings, ddl: list[str], tmp_path: Path) -> None:
    ddl_file = tmp_path / "ddl.sql"
    ddl_file.write_text(";\n".join(ddl) + ";\n", encoding="utf-8")
    nb = run_notebook(code_notebook([
        "%load_ext sql",
        "import flinklab.dbapi\nfrom flinklab.flink.sql_split import split_statements\n"
        "conn = flinklab.dbapi.connect(**{'execution.runtime-mode': 'batch'})\ncur = conn.cursor()\n"
        f"for statement in split_statements(open({str(ddl_file)!r}).read()):\n    cur.execute(statement)",
        "%sql conn",
        "result = %sql SELECT currency, COUNT(*) AS n FROM orders GROUP BY currency\n"
        "import json; print(json.dumps(sorted([[str(c) for c in row] for row in result])))",
        "%sql SELECT COUNT(*) AS n FROM orders",
    ]), flink_cluster)
    assert tracebacks(nb) == []
    expected = sorted([currency, str(n)] for currency, n in _orders_per_currency(flink_cluster).items())
    assert json.loads(text(nb.cells[3], "stdout")) == expected
    assert str(sum(_orders_per_currency(flink_cluster).values())) in text(nb.cells[4], "result")
