"""A class on one cluster: while other jobs hold every slot, a new streaming query waits for one instead of failing.

Flink's standalone resource manager fails a streaming job at once (NoResourceAvailableException) when no slot is
free, once its start-up period is over (by default slot.request.timeout, 60 s on flinklab's clusters). flinklab's
clusters set `resourcemanager.standalone.start-up-time` long, so the job waits, as a batch job does.
"""

from __future__ import annotations

import subprocess
import threading
import time

import pytest

from flinklab.cluster.base import read_record
from flinklab.environment.client import SqlClient
from flinklab.flink.rest import FlinkRest
from flinklab.settings import Settings

pytestmark = pytest.mark.live

ENDLESS = "CREATE TEMPORARY TABLE endless (x INT) WITH ('connector' = 'datagen', 'rows-per-second' = '1')"
SLOT_REQUEST_TIMEOUT = 60  # seconds, as flinklab's clusters set it: the default start-up period


def _jobmanager_age(settings: Settings) -> float:
    pid = read_record(settings).details.jobmanager_pid
    return float(subprocess.run(["ps", "-o", "etimes=", "-p", str(pid)], capture_output=True, text=True,
                                check=True).stdout)


def test_a_query_waits_for_a_slot_held_by_other_jobs(flink_cluster: Settings, sql_client: SqlClient) -> None:
    # past the start-up period Flink would use by default, when it fails such a job at once
    time.sleep(max(0.0, SLOT_REQUEST_TIMEOUT + 5 - _jobmanager_age(flink_cluster)))
    rest = FlinkRest(flink_cluster.rest_url)
    api = sql_client.api
    hogs = []
    try:
        for _ in range(int(rest.overview()["slots-available"])):
            session = api.open_session()
            api.execute(session, ENDLESS)
            operation = api.execute(session, "SELECT x FROM endless")
            next(p for p in api.pages(session, operation) if p.result_type != "NOT_READY")  # its job runs
            hogs.append((session, operation))
        deadline = time.monotonic() + 30
        while rest.overview()["slots-available"] and time.monotonic() < deadline:
            time.sleep(0.5)
        assert rest.overview()["slots-available"] == 0

        session = api.open_session()
        started = time.monotonic()
        operation = api.execute(session, "SELECT v FROM (VALUES (1), (2)) AS t(v)")
        freed: list[float] = []

        def free_one() -> None:
            time.sleep(8)
            freed.append(time.monotonic() - started)
            api.close_operation(*hogs.pop(0))  # cancels that job: its slot is free again

        closer = threading.Thread(target=free_one)
        closer.start()
        rows = [r["fields"] for page in api.pages(session, operation) for r in page.rows]
        waited = time.monotonic() - started
        closer.join()
        assert rows == [["1"], ["2"]]
        assert freed and waited > freed[0]  # it ran once a slot was free, and not before
    finally:
        for hog in hogs:
            api.close_operation(*hog)
