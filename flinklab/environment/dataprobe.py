"""Does a cluster read the lab data? One batch job counts the lines of every lab CSV at the data dir, as the
cluster sees it, and the counts are compared with the files of this host (the caller's list: every lab's CSVs,
the ones `flink-up` provisions on this host for the other backends).

The files are read with the `raw` format (one STRING column per line), so the probe needs no lab's schema: one
table over the data dir, its files picked by name (`source.path.regex-pattern`) and told apart by their
`file.path`, so the job has one source and one aggregation whatever the number of files. Only when that job fails
or misses a file does the probe declare each file on its own and count it in a job of its own, to name the
culprit (a file not there, not readable, or with other rows). The
job runs through the SQL gateway `flink-up` starts anyway (a session of its own pointed at the cluster being
attached, by `rest.address`/`rest.port`, before that cluster is recorded), exactly as the labs' jobs will: if the
probe reads the data, so will they. Only without that gateway (`with_gateway=False`) does it start one in this
process (a JVM: about 10 s more). The JobManager must see the files too (it lists them for the job).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from flinklab.errors import ClusterError
from flinklab.flink.waiting import one_line
from flinklab.settings import Settings
from flinklab.sqlclient.printer import reason_from_server
from flinklab.sqlclient.protocol import GatewayClient, GatewayError

if TYPE_CHECKING:
    from flinklab.environment.client import LabSqlClient


def line_count(path: Path) -> int:
    """Lines as Flink's line reader counts them (a last line without a newline counts)."""
    data = path.read_bytes()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _hint(settings: Settings) -> str:
    return (f"Put the labs' CSVs (`flinklab fixtures generate --out DIR` writes them) into {settings.data_dir} where "
            "the cluster's JobManager and TaskManagers read it (docs/remote.md), or give that "
            "path with `--data-dir`.")


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def probe_lab_data(settings: Settings, rest_url: str, data_files: Sequence[Path],
                   gateway_url: Callable[[], str] | None = None) -> list[Path]:
    """Check each of `data_files` at `settings.data_dir` through the cluster at `rest_url`; return the files
    checked. `gateway_url()` names a running gateway to probe through (waiting until it answers); None starts
    one in this process.

    ClusterError naming the first file the cluster cannot read or whose row count differs."""
    sources = list(data_files)
    if not sources:
        return []
    remote = [settings.data_dir / src.name for src in sources]
    with _probe_client(settings, rest_url, gateway_url) as client:
        api = client.api
        parsed = urlparse(rest_url)
        session = api.open_session({"execution.runtime-mode": "batch", "rest.address": parsed.hostname or "",
                                    "rest.port": str(parsed.port or 8081)})
        counts = _counts_in_one_job(api, session, settings.data_dir, remote)
        if counts is None:
            counts = _counts_file_by_file(settings, api, session, remote)
    for index, (src, path) in enumerate(zip(sources, remote)):
        expected, found = line_count(src), counts.get(index)
        if found != expected:
            raise ClusterError(f"The lab data file {path} differs on the cluster: {found} rows there, {expected} "
                               f"in {src}.", _hint(settings))
    return remote


def _counts_in_one_job(api: GatewayClient, session: str, data_dir: Path,
                       remote: list[Path]) -> dict[int, int] | None:
    """Each file's line count (by its index in `remote`) from one table over `data_dir` that reads only those
    files; None when the job fails or a file has no count (absent, or empty: the slow path says which)."""
    names = "|".join(re.escape(path.name) for path in remote)  # Java's regex reads Python's escapes alike
    pattern = f"^(file:)?{re.escape(str(data_dir).rstrip('/'))}/({names})$"
    ddl = ("CREATE TEMPORARY TABLE flinklab_probe (line STRING, path STRING NOT NULL METADATA FROM 'file.path') "
           f"WITH ('connector' = 'filesystem', 'path' = {_sql_string(str(data_dir))}, 'format' = 'raw', "
           f"'source.path.regex-pattern' = {_sql_string(pattern)})")
    try:
        _rows(api, session, ddl)
        rows = _rows(api, session, "SELECT path, COUNT(*) AS n FROM flinklab_probe GROUP BY path")
    except GatewayError:
        return None
    found = {re.sub(r"^file:(//)?", "", str(row[0])): int(row[1]) for row in rows}
    try:
        return {index: found[str(path)] for index, path in enumerate(remote)}
    except KeyError:  # a file without a count
        return None


def _counts_file_by_file(settings: Settings, api: GatewayClient, session: str, remote: list[Path]) -> dict[int, int]:
    """Each file's line count, each file declared and counted on its own: a file the cluster cannot read is a
    ClusterError naming it."""
    counts: dict[int, int] = {}
    for index, path in enumerate(remote):
        ddl = (f"CREATE TEMPORARY TABLE flinklab_probe_{index} (line STRING) WITH ("
               f"'connector' = 'filesystem', 'path' = {_sql_string(str(path))}, 'format' = 'raw')")
        try:
            _rows(api, session, ddl)
        except GatewayError as exc:
            raise ClusterError(f"The data probe could not declare {path}: {one_line(_why(exc), 200)}") from None
        try:
            counts.update(_counts(api, session, f"SELECT {index} AS f, COUNT(*) AS n FROM flinklab_probe_{index}"))
        except GatewayError as exc:  # any failure to read it is the user's to fix
            raise ClusterError(f"The cluster cannot read the lab data file {path} ({_why(exc)}).",
                               _hint(settings)) from None
    return counts


def _probe_client(settings: Settings, rest_url: str, gateway_url: Callable[[], str] | None) -> LabSqlClient:
    """A client of the running gateway (its session is pointed at `rest_url`), else of one in this process."""
    from flinklab.environment.client import LabSqlClient

    if gateway_url is not None:
        return LabSqlClient(settings, gateway_url(), cluster_url=rest_url)
    return LabSqlClient(settings, embedded=True, cluster_url=rest_url)


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
