"""The remote backend: attach to a running Flink session cluster that flinklab did not start (a class's cluster).

`up` only checks and records; it starts nothing. The checks, in order, each one line and exit 2 when it fails:
the REST API answers at `--rest-url`; what answers is Flink (GET /config names a `flink-version`); that version
is the pinned one (the PyFlink client and the cluster must match); TaskManagers with free slots are registered;
the cluster can read the lab data at the data dir (`data_probe`, which the use case attaching sets: flinklab.
environment.dataprobe runs one small batch job). Only then is the cluster recorded, so a failed attach leaves no
record. `down` forgets the record and never touches the
cluster; its logs are in its own Web UI.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

from flinklab.cluster.base import (
    BackendDetails,
    ClusterRecord,
    ClusterStatus,
    UpResult,
    fill_from_overview,
    read_record,
    remove_record,
    write_record,
)
from flinklab.cluster.progress import ProgressFn, Step, quiet
from flinklab.errors import ClusterError, UsageError
from flinklab.flink.rest import FlinkRest, RestUnavailable
from flinklab.flink.waiting import one_line
from flinklab.settings import DEFAULT_REST_PORT, Settings
from flinklab.version import DEFAULT_FLINK_IMAGE, FLINK_VERSION

URL_HINT = "Give the JobManager's REST address: `--rest-url http://HOST:PORT` or FLINKLAB_REST_URL=http://HOST:PORT."


@dataclass
class RemoteDetails(BackendDetails):
    """An attachment: when it was made (the cluster itself is not flinklab's)."""

    attached_at: str  # ISO 8601, UTC


def parse_rest_url(url: str) -> tuple[str, int]:
    """(host, port) of `http://HOST[:PORT][/]`; UsageError naming the URL otherwise (no https, no path)."""
    parts = urlsplit(url.strip())
    try:
        port = parts.port or DEFAULT_REST_PORT
    except ValueError:
        port = None
    if parts.scheme != "http" or not parts.hostname or port is None or parts.path not in ("", "/") \
            or parts.query or parts.fragment:
        why = "https is not supported" if parts.scheme == "https" else "not http://HOST:PORT"
        raise UsageError(f"The REST URL {url!r} cannot be used ({why}).", URL_HINT)
    return parts.hostname, port


def flink_config(url: str, timeout: float = 5.0) -> dict:
    """GET /config of the endpoint at `url`: Flink answers `{"flink-version": ..., "features": ...}`.

    ClusterError: nothing answers (one line naming the URL), or something answers that is not Flink."""
    try:
        with urllib.request.urlopen(f"{url}/config", timeout=timeout) as resp:
            body = resp.read(1_000_000)
    except urllib.error.HTTPError as exc:  # an HTTP server answered, with an error status
        raise _not_flink(url, f"GET /config answered HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError) as exc:
        why = getattr(exc, "reason", exc)
        raise ClusterError(f"Nothing answers at {url} ({one_line(why, 120)}).",
                           "Check the address and that the cluster runs (its Web UI is at the same URL). "
                           + URL_HINT) from None
    try:
        config = json.loads(body.decode("utf-8"))
    except ValueError:
        raise _not_flink(url, "GET /config did not answer JSON") from None
    if not isinstance(config, dict) or not isinstance(config.get("flink-version"), str):
        raise _not_flink(url, "GET /config names no flink-version")
    return config


def _not_flink(url: str, why: str) -> ClusterError:
    return ClusterError(f"{url} answers, but it is not a Flink REST endpoint ({why}).",
                        "Give the JobManager's REST port (the Web UI's URL), not another service's. " + URL_HINT)


def check_version(url: str, config: dict) -> None:
    """ClusterError naming both versions unless the cluster runs the pinned Flink."""
    theirs = config["flink-version"]
    if theirs != FLINK_VERSION:
        raise ClusterError(
            f"The cluster at {url} runs Flink {theirs}; flinklab needs Flink {FLINK_VERSION} (its client is "
            f"PyFlink {FLINK_VERSION}, and client and cluster must be the same version).",
            f"Run the class cluster on {DEFAULT_FLINK_IMAGE} (see deploy/kubernetes/).")


def check_slots(url: str, overview: dict) -> None:
    """ClusterError unless TaskManagers are registered and at least one slot is free."""
    tms, free, total = (int(overview.get(k, 0)) for k in ("taskmanagers", "slots-available", "slots-total"))
    if tms == 0:
        raise ClusterError(f"No TaskManager is registered with the cluster at {url}.",
                           "Start its TaskManagers and wait until its Web UI lists them, then run `flink-up` again.")
    if free == 0:
        raise ClusterError(f"All {total} slots of the {tms} TaskManager(s) at {url} are in use.",
                           "Wait for running jobs to finish (or cancel them), or add TaskManagers to the cluster.")


class RemoteBackend:
    """An attachment to a running Flink session cluster; see the module docstring."""

    name = "remote"
    Details = RemoteDetails
    reads_local_data = False  # the cluster reads its own data dir: `up` probes it instead
    owns_cluster = False  # `down` detaches; it never stops or changes the cluster
    mutual_tls = False  # the class cluster's REST API is the teacher's to secure

    def __init__(self, settings: Settings):
        self.settings = settings
        #: Checks that the cluster at a REST URL reads the lab data, returning the files checked; set by the use
        #: case that attaches (the backend knows no lab). None: the attachment checks version and slots only.
        self.data_probe: Callable[[str], list[Path]] | None = None

    @classmethod
    def usable(cls, settings: Settings) -> tuple[bool, str]:
        """(True, why) when a REST URL to attach to is given (FLINKLAB_REST_URL / `--rest-url`)."""
        if settings.remote_url:
            return True, f"a cluster to attach to is given ({settings.remote_url})"
        return False, "no cluster to attach to (no --rest-url, FLINKLAB_REST_URL unset)"

    def _url(self, record: ClusterRecord | None) -> str:
        if self.settings.remote_url:
            host, port = parse_rest_url(self.settings.remote_url)
            return f"http://{host}:{port}"
        if record is not None and record.backend == self.name:
            return record.rest_url
        raise UsageError("`--backend remote` needs the address of the cluster to attach to.", URL_HINT)

    # ---------------------------------------------------------------- up
    def up(self, progress: ProgressFn | None = None) -> UpResult:
        """Check the cluster (see the module docstring), then record it; a second `up` re-checks and says so."""
        say = progress or quiet
        start = time.monotonic()
        s = self.settings
        record = read_record(s)
        url = self._url(record)
        if record is not None and record.backend != self.name:
            raise ClusterError(f"A {record.backend} cluster started by flinklab is recorded in {s.state_dir}.",
                               "Stop it with `flink-down` first.")
        if record is not None and record.rest_url != url:
            raise ClusterError(f"Already attached to the cluster at {record.rest_url}, not {url}.",
                               "Detach with `flink-down` first (it leaves that cluster running).")
        say(Step(f"asking {url} what it is"))
        config = flink_config(url)
        check_version(url, config)
        overview = FlinkRest(url).overview()
        check_slots(url, overview)
        if record is not None:
            say(Step(f"already attached to {url}"))
            return UpResult(status=self.status(), already_running=True, seconds=time.monotonic() - start)
        if self.data_probe is not None:
            say(Step(f"checking that the cluster reads the lab data in {s.data_dir} (a small batch job)"))
            checked = self.data_probe(url)
            say(Step(f"the cluster reads all {len(checked)} lab data file(s) with the expected row counts"))
        host, port = parse_rest_url(url)
        tms = int(overview.get("taskmanagers", 0))
        write_record(s, ClusterRecord(
            backend=self.name, rest_host=host, rest_port=port, taskmanagers=tms,
            slots=int(overview.get("slots-total", 0)) // max(tms, 1), flink_version=config["flink-version"],
            data_dir=str(s.data_dir), workspace_root=str(s.workspace_root),
            details=RemoteDetails(attached_at=datetime.now(timezone.utc).isoformat(timespec="seconds")),
        ))
        return UpResult(status=self.status(), seconds=time.monotonic() - start)

    # ---------------------------------------------------------------- down
    def down(self) -> bool:
        """Forget the attachment (the cluster keeps running, untouched); False when none was recorded."""
        record = read_record(self.settings)
        if record is None or record.backend != self.name:
            return False
        remove_record(self.settings)
        return True

    # ---------------------------------------------------------------- status
    def status(self) -> ClusterStatus:
        """The attached cluster as its REST API reports it."""
        record = read_record(self.settings)
        rest_url = record.rest_url if record else self.settings.rest_url
        st = ClusterStatus(backend=self.name, running=False, rest_url=rest_url, attached=True,
                           state_dir=str(self.settings.state_dir))
        if record is None or record.backend != self.name:
            st.problems.append(f"no remote cluster attached in {self.settings.state_dir}")
            return st
        try:
            ov = FlinkRest(rest_url, timeout=3).overview()
        except RestUnavailable:
            st.problems.append(f"the remote cluster at {rest_url} does not answer")
            return st
        fill_from_overview(st, ov)
        st.running = True
        if st.taskmanagers == 0:
            st.problems.append("no TaskManager is registered with the remote cluster")
        return st

    # ---------------------------------------------------------------- logs
    def settling(self) -> bool:
        """Nothing of ours goes on after an attachment."""
        return False

    def follow_logs(self, component: str | None, follow: bool) -> Iterator[str]:
        """A remote cluster's logs are not on this machine: ClusterError saying where they are."""
        record = read_record(self.settings)
        url = record.rest_url if record else "its Web UI"
        raise ClusterError(f"The logs of a remote cluster are in its own Web UI: {url} (Job Manager and "
                           "Task Managers, tab Logs).", "flinklab shows the logs only of clusters it started.")
        yield  # pragma: no cover - makes this a generator like the other backends' follow_logs
