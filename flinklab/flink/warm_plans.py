"""The cluster warm-up's jobs kept as files, for the next fresh cluster of a state dir to run while its gateway starts.

A new cluster's TaskManager and JobManager run their first jobs several times slower than later ones (class loading,
then code compiled over the first dozen jobs), and a learner's first query pays for what the warm-up jobs leave.
The gateway's warm-up jobs can start only once the gateway serves and has planned them (seconds after the cluster is
ready, on 2 cores), but a job planned once can be run again: the gateway writes its warm-up jobs, planned and
serialized as Flink's REST API takes a job (`POST /jobs`, what RestClusterClient uploads), into the state dir
(`write_manifest`, once), and flink-up submits them to the next fresh cluster the moment it is ready
(`submit_plans`), while the gateway still starts. The cluster is idle then, and the JVMs' start has left cores free.

A plan names its CSV file (in the data dir), its parallelism and the Flink version it was built by; the manifest
says all three, and a cluster or data dir that does not match them gets none (the gateway writes them anew).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from flinklab.flink.rest import FlinkRest, RestUnavailable
from flinklab.flink.waiting import Wait

#: The plans' directory in a state dir, and its manifest
PLANS_DIR = "warm-up-plans"
MANIFEST = "manifest.json"
#: How many plans the gateway writes (streaming and batch in turn): each is a job the first query need not warm up
PLANS = 4


@dataclass(frozen=True)
class Manifest:
    """What the plans in a directory were built for: the CSV file their source reads, their parallelism, the Flink
    version that built them; `files`, the plans in the order they are submitted."""

    csv_path: str
    parallelism: int
    flink_version: str
    files: tuple[str, ...]

    def fits(self, csv_path: str, overview: dict) -> bool:
        """Whether these plans run on the cluster `overview` (its /overview) describes, reading `csv_path`."""
        return (self.csv_path == csv_path and self.flink_version == overview.get("flink-version")
                and 0 < self.parallelism <= int(overview.get("slots-total", 0)))


def plans_dir(state_dir: Path) -> Path:
    return state_dir / PLANS_DIR


def read_manifest(directory: Path) -> Manifest | None:
    """The manifest in `directory`, or None when there is none (or it is not one of ours)."""
    try:
        data = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
        files = tuple(str(name) for name in data["files"])
        if any("/" in name or name.startswith(".") for name in files):
            return None
        return Manifest(str(data["csvPath"]), int(data["parallelism"]), str(data["flinkVersion"]), files)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_manifest(directory: Path, manifest: Manifest) -> None:
    """Write `manifest` beside the plans (the last step of writing them: plans without it are never read)."""
    path = directory / MANIFEST
    temporary = path.with_name(f".{MANIFEST}.{os.getpid()}")
    temporary.write_text(json.dumps({"csvPath": manifest.csv_path, "parallelism": manifest.parallelism,
                                     "flinkVersion": manifest.flink_version, "files": list(manifest.files)}),
                         encoding="utf-8")
    temporary.replace(path)


def submit_plans(rest: FlinkRest, directory: Path, csv_path: str, deadline: float,
                 ended: Sequence[str] = ("FINISHED", "FAILED", "CANCELED")) -> list[str]:
    """Submit the plans in `directory` to the cluster `rest` reaches, one after the other (each once the one before
    ended), until `deadline` (time.monotonic()); the ids of the jobs submitted. Nothing when the manifest does not
    fit the cluster or `csv_path`; a job that did not finish ends the submissions, one still running at the
    deadline is cancelled. Never raises for a cluster that does not answer or refuses a plan: a warm-up is a
    nicety."""
    manifest = read_manifest(directory)
    submitted: list[str] = []
    try:
        if manifest is None or not manifest.fits(csv_path, rest.overview()):
            return submitted
        for name in manifest.files:
            plan = (directory / name).read_bytes()
            submitted.append(rest.submit(plan, name))
            state = _wait_ended(rest, submitted[-1], deadline, ended)
            if state is None:
                rest.cancel(submitted[-1])
            if state != "FINISHED":
                break
    except (OSError, RestUnavailable):
        pass
    return submitted


def _wait_ended(rest: FlinkRest, job_id: str, deadline: float, ended: Sequence[str]) -> str | None:
    """The job's end state, or None at the deadline (checked every 20 ms: a warm job ends in about 0.1 s)."""
    def state() -> str | None:
        now = str(rest.get(f"/jobs/{job_id}/status").get("status", ""))
        return now if now in ended else None

    return Wait(f"warm-up job {job_id}", max(0.0, deadline - time.monotonic()), interval=0.02).poll(state)
