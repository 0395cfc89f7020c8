"""The gateway's warm-up (flinklab/gateway/warmup.py) and its paced result fetches, on the suite's real cluster:
flink-up has the gateway run its two tiny jobs (streaming, batch) over a CSV file, once, and nothing logs an
error; the planner's dry runs submit nothing; a query's fetches are paced by flinklab's JobClient (Flink's fixed
100 ms sleep between them is off), and its rows are still all there, streaming or batch."""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from flinklab.access import read_token
from flinklab.cluster.base import resolve_rest_url
from flinklab.environment import gateway
from flinklab.flink.rest import FlinkRest
from flinklab.gateway.session import Session
from flinklab.gateway.warmup import DRY_TARGET, JOB_NAME, WARM_UP_FILE, warm_planner, warm_up_rows
from flinklab.settings import Settings
from flinklab.sqlclient.protocol import WARM_UP_PATH, GatewayClient, GatewayError, UnauthorizedError

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def service(in_process_service: Any) -> Any:
    return in_process_service


def _warm_up_jobs(settings: Settings) -> list[str]:
    return [job.state for job in FlinkRest(resolve_rest_url(settings)).jobs() if job.name == JOB_NAME]


def _warm_up_ok(settings: Settings) -> bool:
    """The warm-up jobs on the cluster come in pairs (a streaming and a batch one per warming gateway), and all
    FINISHED."""
    states = _warm_up_jobs(settings)
    return bool(states) and len(states) % 2 == 0 and set(states) == {"FINISHED"}


def _warm_up_job_types(settings: Settings) -> list[str]:
    """The warm-up jobs' types (STREAMING / BATCH), oldest first."""
    rest = FlinkRest(resolve_rest_url(settings))
    jobs = sorted((rest.job(job.job_id) for job in rest.jobs() if job.name == JOB_NAME), key=lambda j: j["start-time"])
    return [str(job.get("job-type")) for job in jobs]


def test_flink_up_warms_its_cluster_once_without_an_error(flink_cluster: Settings) -> None:
    client = GatewayClient(flink_cluster.gateway_url, token=lambda: read_token(flink_cluster.state_dir))
    try:
        state = client.warm_up(start=False)  # the suite's fixture waited for the warm-ups flink-up started
        assert state["planner"]["state"] == "done", state
        # the warm-up's two jobs ran on this cluster, over its CSV file in the data dir (a streaming GROUP BY, then
        # a batch one): by this gateway ("done"), or by an earlier one, when the suite restarted the gateway beside
        # a cluster that had run jobs, which flink-up does not warm again ("idle")
        # (tests of other gateways on this shared cluster may warm it again, as test_gateway_cds does to make its
        # gateway dump: flink-up's two are the oldest, and every warm-up ended FINISHED)
        assert _warm_up_ok(flink_cluster)
        assert _warm_up_job_types(flink_cluster)[:2] == ["STREAMING", "BATCH"]
        assert (flink_cluster.data_dir / WARM_UP_FILE).read_text() == warm_up_rows()
        assert state["state"] in ("done", "idle"), state
        if state["state"] == "done":
            assert state["seconds"] > 0
            assert client.warm_up()["state"] == "done"  # asked again: nothing runs again
        # a later flink-up finds a cluster that ran a job: its TaskManagers are warm, nothing is asked
        assert gateway.GatewayProcess(flink_cluster).warm_cluster(resolve_rest_url(flink_cluster)) == "warm"
    finally:
        client.close()
    assert _warm_up_ok(flink_cluster)  # nothing ran again
    log = gateway.log_file(flink_cluster).read_text(encoding="utf-8", errors="replace")
    assert "planner warmed up in" in log
    assert "cluster warmed up in" in log or state["state"] == "idle"  # the log goes on across gateways
    assert not [line for line in log.splitlines() if " ERROR " in line or "Exception" in line]


def test_the_warm_up_endpoint_wants_the_token(flink_cluster: Settings) -> None:
    stranger = GatewayClient(flink_cluster.gateway_url, token=lambda: "not-the-token")
    try:
        with pytest.raises(UnauthorizedError):
            stranger.warm_up()
    finally:
        stranger.close()


def test_the_warm_up_file_must_be_an_absolute_path(flink_cluster: Settings) -> None:
    client = GatewayClient(flink_cluster.gateway_url, token=lambda: read_token(flink_cluster.state_dir))
    try:
        with pytest.raises(GatewayError) as caught:
            client._call("POST", WARM_UP_PATH, {"csvPath": "data/warm.csv"})
        assert caught.value.status == 400
        assert "csvPath must be an absolute path" in str(caught.value)
    finally:
        client.close()


def test_the_planners_dry_runs_submit_nothing(flink_cluster: Settings, service: Any) -> None:
    rest = FlinkRest(resolve_rest_url(flink_cluster))
    before = {job.job_id for job in rest.jobs()}
    assert warm_planner(service.jvm) > 0
    assert {job.job_id for job in rest.jobs()} == before


def _rows(source: Any) -> list[list[Any]]:
    """Every row of a result source, its JSON format's fields, as the gateway's fetches take them."""
    rows = []
    while not source.finished():
        page = source.take(1000, 5.0)
        if page.count:
            rows += [row["fields"] for row in json.loads(f"[{page.json_rows}]")]
    return rows


def test_a_querys_fetches_are_paced_by_flinklabs_job_client(service: Any) -> None:
    session = service.open_session({"execution.runtime-mode": "batch"})
    try:
        source = session.execute("SELECT v, COUNT(*) AS n FROM (VALUES (1), (2), (2), (3)) AS t(v) GROUP BY v")
        try:
            assert source._pump.isPaced()  # Flink's collect fetcher was found and its own sleep switched off
            assert sorted(_rows(source)) == [[1, 1], [2, 2], [3, 1]]
            assert source.failure() is None
        finally:
            source.close()
        session.set("execution.runtime-mode", "streaming")
        session.execute("CREATE TEMPORARY TABLE ticks (x INT) WITH ('connector' = 'datagen', 'rows-per-second' = "
                        "'20', 'number-of-rows' = '30', 'fields.x.kind' = 'sequence', 'fields.x.start' = '1', "
                        "'fields.x.end' = '30')")
        source = session.execute("SELECT x FROM ticks")
        try:
            assert source._pump.isPaced()
            assert sorted(row[0] for row in _rows(source)) == list(range(1, 31))  # 1.5 s of rows, every one
        finally:
            source.close()
    finally:
        service.close_session(session.handle)


def _threads(link: str) -> dict[int, tuple[str, int]]:
    """The JVM's threads (the pid of a nativeThread link): tid -> (name as Linux keeps it, nice value)."""
    pid = link.split(" ")[1].split("/")[0]
    threads = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            tid = int(task.name)
            threads[tid] = ((task / "comm").read_text().strip(), os.getpriority(os.PRIO_PROCESS, tid))
    return threads


def test_the_planners_warm_up_plans_at_the_lowest_cpu_priority_and_a_learners_session_does_not(
        service: Any) -> None:
    learner = Session(service.jvm, {"execution.target": DRY_TARGET})
    try:
        link = str(learner._worker.nativeThread())
        own_tid = int(link.rsplit("/", 1)[-1])
        seen: set[tuple[str, int]] = set()
        done = threading.Event()
        planning = threading.Thread(target=lambda: (warm_planner(service.jvm), done.set()))
        planning.start()
        while not done.is_set():  # the warm-up's session thread, while it plans
            seen |= {each for tid, each in _threads(link).items() if tid != own_tid}
            time.sleep(0.005)
        planning.join()
        assert ("flinklab-sessio", 19) in seen  # "flinklab-session-..." as Linux keeps a thread name (15 chars)
        assert _threads(link)[own_tid] == ("flinklab-sessio", 0)  # nice is per thread: the learner's is untouched
        learner.plan("SELECT 1")  # and it plans as before
    finally:
        learner.close()
