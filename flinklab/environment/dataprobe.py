"""Does a cluster read the lab data? One batch job counts the lines of every lab CSV at the data dir, as the
cluster sees it, and the counts are compared with the files of this host (the caller's list, by default the
committed fixtures/*.csv: the ones `flink-up` provisions on this host for the other backends).

The files are read with the `raw` format (one STRING column per line), so the probe needs no lab's schema. The
job runs through a SQL gateway of this process (PyFlink, `execution.target: remote`), exactly as the labs' jobs
will: if the probe reads the data, so will they. The JobManager must see the files too (it lists them for the job).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from flinklab.errors import ClusterError
from flinklab.flink.waits import one_line
from flinklab.settings import Settings
from flinklab.sqlclient.printer import reason_from_server
from flinklab.sqlclient.protocol import GatewayClient, GatewayError


def line_count(path: Path) -> int:
    """Lines as Flink's line reader counts them (a last line without a newline counts)."""
    data = path.read_bytes()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _hint(settings: Settings) -> str:
    return (f"Put the labs' CSVs (`flinklab fixtures generate --out DIR` writes them) into {settings.data_dir} where "
            "the cluster's JobManager and TaskManagers read it (README: \"A class on one cluster\"), or give that "
            "path with `--data-dir`.")


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def probe_lab_data(settings: Settings, rest_url: str, data_files: Sequence[Path]) -> list[Path]:
    """Check each of `data_files` at `settings.data_dir` through the cluster at `rest_url`; return the files
    checked.

    ClusterError naming the first file the cluster cannot read or whose row count differs."""
    from flinklab.environment.client import SqlClient

    sources = list(data_files)
    if not sources:
        return []
    remote = [settings.data_dir / src.name for src in sources]
    with SqlClient(settings, embedded=True, cluster_url=rest_url) as client:
        api = client.api
        session = api.open_session({"execution.runtime-mode": "batch"})
        for index, path in enumerate(remote):
            ddl = (f"CREATE TEMPORARY TABLE flinklab_probe_{index} (line STRING) WITH ("
                   f"'connector' = 'filesystem', 'path' = {_sql_string(str(path))}, 'format' = 'raw')")
            try:
                _rows(api, session, ddl)
            except GatewayError as exc:
                raise ClusterError(f"The data probe could not declare {path}: {one_line(_why(exc), 200)}") \
                    from None
        union = " UNION ALL ".join(f"SELECT {i} AS f, COUNT(*) AS n FROM flinklab_probe_{i}"
                                   for i in range(len(remote)))
        try:
            counts = _counts(api, session, union)
        except GatewayError:  # the job failed: find the file, one job per file
            counts = {}
            for index, path in enumerate(remote):
                try:
                    counts.update(_counts(api, session,
                                          f"SELECT {index} AS f, COUNT(*) AS n FROM flinklab_probe_{index}"))
                except GatewayError as exc:  # any failure to read it is the user's to fix
                    raise ClusterError(f"The cluster cannot read the lab data file {path} ({_why(exc)}).",
                                       _hint(settings)) from None
    for index, (src, path) in enumerate(zip(sources, remote)):
        expected, found = line_count(src), counts.get(index)
        if found != expected:
            raise ClusterError(f"The lab data file {path} differs on the cluster: {found} rows there, {expected} "
                               f"in {src}.", _hint(settings))
    return remote


def _rows(api: GatewayClient, session: str, statement: str) -> list[list]:
    operation = api.execute(session, statement)
    try:
        return [row["fields"] for page in api.pages(session, operation) for row in page.rows]
    finally:
        try:
            api.close_operation(session, operation)
        except GatewayError:
            pass


def _counts(api: GatewayClient, session: str, query: str) -> dict[int, int]:
    return {int(row[0]): int(row[1]) for row in _rows(api, session, query)}


def _why(exc: GatewayError) -> str:
    """The root cause of a failed probe job, in one line (e.g. `File ... does not exist`)."""
    lines = [line.strip() for line in exc.server_side.splitlines() if line.strip()]
    causes = [line for line in lines if "FileNotFound" in line or "does not exist" in line
              or "ermission denied" in line]
    return one_line(causes[-1] if causes else reason_from_server(exc.server_side), 200)
