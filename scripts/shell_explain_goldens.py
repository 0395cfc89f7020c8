#!/usr/bin/env python3
"""Capture the planner's answers that `\\validate` reads, from the running cluster (the FLINKLAB_* environment):
each statement's `EXPLAIN CHANGELOG_MODE` text and each scanned table's `SHOW CREATE TABLE`, as the gateway returns
them, into tests/data/shell/ (the unit tests of flinklab/sqlclient/shell/validate.py replay them). Nothing here is
typed by hand.

    .venv/bin/python scripts/shell_explain_goldens.py
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "tests" / "data" / "shell"

DDL = """
CREATE TABLE orders (id INT, amount DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'datagen', 'rows-per-second' = '5');
CREATE TABLE small (k STRING, v INT)
  WITH ('connector' = 'datagen', 'number-of-rows' = '30', 'fields.k.length' = '1');
CREATE TABLE sink (k STRING, n BIGINT) WITH ('connector' = 'blackhole');
"""
#: name -> statement
STATEMENTS = {
    "aggregate": "SELECT k, COUNT(*) AS n FROM small GROUP BY k",
    "filter": "SELECT id, amount FROM orders WHERE amount > 0.5",
    "window": "SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' "
              "SECOND)) GROUP BY window_start, window_end",
    "join": "SELECT o.id, s.k FROM orders o JOIN small s ON o.id = s.v",
    "insert": "INSERT INTO sink SELECT k, COUNT(*) FROM small GROUP BY k",
}


def main() -> int:
    from flinklab.access import read_token
    from flinklab.settings import Settings
    from flinklab.sqlclient.kinds import guess_kind
    from flinklab.sqlclient.shell.executor import ShellSession
    from flinklab.sqlclient.shell.validate import explain_statement, physical_plan, scanned_tables

    settings = Settings.from_env()
    init = TARGET / "validate_ddl.sql"
    init.write_text(DDL.lstrip())
    session = ShellSession(settings.gateway_url, {}, [init], io.StringIO(),
                           token=lambda: read_token(settings.state_dir))
    assert session.open(), "the DDL failed"
    try:
        for name, statement in STATEMENTS.items():
            explain = "\n".join(r[0] for r in session.rows(explain_statement(statement, guess_kind(statement))))
            (TARGET / f"explain_{name}.txt").write_text(explain + "\n")
            for table in scanned_tables(physical_plan(explain)):
                short = table.rsplit(".", 1)[-1].strip("`")
                ddl = "\n".join(r[0] for r in session.rows(f"SHOW CREATE TABLE {table}"))
                (TARGET / f"create_{short}.txt").write_text(ddl + "\n")
    finally:
        session.close()
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
