"""The lab texts' fixed paths (`/opt/lab/fixtures/data` for the CSVs, `/root/flink` for the workspace) and their
rewriting to where this machine keeps them: the reference SQL a run installs and the guide `flinklab labs` prints
say this machine's paths."""

from __future__ import annotations

import re
from pathlib import Path

#: The literal defaults the lab texts (and so the reference SQL) use.
TEXT_DATA_DIR = "/opt/lab/fixtures/data"
TEXT_WORKSPACE_ROOT = "/root/flink"


def _sql_literal_path(path: Path) -> str:
    # The paths land inside SQL string literals: a quote must be doubled.
    return str(path).replace("'", "''")


def rewrite_paths(sql: str, data_dir: Path, workspace_root: Path) -> str:
    """Point the lab texts' default paths at this machine's data dir and workspace root."""
    # Only whole path prefixes: `/root/flink/joins` is rewritten, `/root/flinkx` is not.
    sql = re.sub(re.escape(TEXT_DATA_DIR) + r"(?=[/'\"\s]|$)", lambda _: _sql_literal_path(data_dir), sql)
    sql = re.sub(
        re.escape(TEXT_WORKSPACE_ROOT) + r"(?=[/'\"\s]|$)", lambda _: _sql_literal_path(workspace_root), sql
    )
    return sql
