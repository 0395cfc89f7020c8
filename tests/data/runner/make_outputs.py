"""Regenerate the runner's golden outputs: `python tests/data/runner/make_outputs.py [REST_URL]`.

Runs each `*.sql` script below through `run_invocation` (as `sql-client.sh -i ddl.sql -f X.sql` would) against a
running cluster and writes `X.out` next to this file. The data is written to a temporary dir first, so the
outputs do not depend on the machine (footers carry real times, which differ per run).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

ORDERS = """\
1,A,10.00,2024-01-01 09:01:35
2,B,20.00,2024-01-01 09:03:00
3,A,5.00,2024-01-01 09:06:35
4,B,30.00,2024-01-01 09:08:01
5,A,7.00,2024-01-01 09:10:00
6,C,50.00,2024-01-01 09:12:00
7,A,12.00,2024-01-01 09:25:00
"""

DDL = """\
CREATE TABLE orders (
  order_id INT, shop STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'file://{data}/orders.csv', 'format' = 'csv');
CREATE TABLE sink (shop STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'blackhole');
"""

SCRIPTS = {
    "batch": """\
SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'batch';
SELECT shop, COUNT(*) AS n, SUM(amount) AS revenue, MAX(ts) AS last_ts FROM orders GROUP BY shop ORDER BY shop;
SELECT COUNT(*) AS cnt FROM orders;
""",
    "streaming_changelog": """\
SET 'sql-client.execution.result-mode' = 'tableau';
-- an updating aggregation: -U/+U rows
SELECT shop, COUNT(*) AS n, SUM(amount) AS revenue FROM orders GROUP BY shop;
-- an append-only window aggregation: +I rows only
SELECT window_start, window_end, COUNT(*) AS n, SUM(amount) AS revenue
FROM TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' MINUTE)
GROUP BY window_start, window_end;
""",
    "empty": """\
SET 'sql-client.execution.result-mode' = 'tableau';
SELECT order_id, shop FROM orders WHERE amount > 1000;
SET 'execution.runtime-mode' = 'batch';
SELECT order_id, shop FROM orders WHERE amount > 1000;
""",
    "error": """\
SET 'sql-client.execution.result-mode' = 'tableau';
SELECT COUNT(*) FROM order_typo;
SELECT 1;
""",
    "result_mode_error": """\
SELECT COUNT(*) AS cnt FROM orders;
""",
    "insert_plan": """\
SET 'sql-client.execution.result-mode' = 'tableau';
INSERT INTO sink SELECT shop, amount FROM orders;
COMPILE PLAN 'file://{data}/sink-plan.json' FOR INSERT INTO sink SELECT shop, amount FROM orders WHERE amount > 6;
SHOW TABLES;
DESCRIBE orders;
""",
}


def main(rest_url: str) -> None:
    from urllib.parse import urlparse

    from flinklab.environment.client import LabSqlClient
    from flinklab.settings import Settings
    from flinklab.sqlclient.client import run_invocation

    with tempfile.TemporaryDirectory(prefix="flinklab-golden-") as tmp:
        data = Path(tmp)
        (data / "orders.csv").write_text(ORDERS)
        ddl = data / "ddl.sql"
        ddl.write_text(DDL.format(data=data))
        rest = urlparse(rest_url)
        settings = Settings.from_env(state_dir=data / "state", rest_host=rest.hostname, rest_port=rest.port)
        client = LabSqlClient(settings, embedded=True)  # a gateway in this process, on the cluster at rest_url
        try:
            for name, script in SCRIPTS.items():
                path = data / f"{name}.sql"
                path.write_text(script.format(data=data))
                target = HERE / f"{name}.out"
                with target.open("w", encoding="utf-8") as out:
                    result = run_invocation(client, out, init_files=[ddl], script_file=path)
                text = target.read_text().replace(str(data), "/tmp/flinklab-golden")
                target.write_text(text)
                print(f"{target.name}: ok={result.ok} jobs={len(result.job_ids)}")
        finally:
            client.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8081")
