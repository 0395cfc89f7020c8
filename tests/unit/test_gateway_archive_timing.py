"""When a recording gateway dumps its class-data archive (flinklab.environment.serve_gateway.dump_when_quiet):
after its warm-ups, in a quiet moment, never while the cluster's warm-up runs, and not at its stop (no JVM here:
the service is a stand-in with the warm-ups' states and the real Traffic)."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from flinklab.environment import serve_gateway
from flinklab.gateway import jvm_archive
from flinklab.gateway.warmup import Traffic


def test_the_dump_waits_for_both_warm_ups_and_a_quiet_moment(monkeypatch: pytest.MonkeyPatch) -> None:
    dumped: list[float] = []
    monkeypatch.setattr(jvm_archive, "dump", lambda jvm, archive: dumped.append(time.monotonic()) or True)
    service = SimpleNamespace(planner_warm_up=SimpleNamespace(state="running"),
                              cluster_warm_up=SimpleNamespace(state="idle"), traffic=Traffic(quiet=1.0), jvm=None)
    worker = threading.Thread(target=serve_gateway.dump_when_quiet, args=(service, None, 0.3), daemon=True)
    worker.start()
    time.sleep(0.8)
    assert dumped == []  # the planner still warms up
    service.planner_warm_up.state = "done"
    service.cluster_warm_up.state = "running"
    time.sleep(1.0)
    assert dumped == []  # the cluster's warm-up runs: flink-up waits for it
    with service.traffic.busy():
        service.cluster_warm_up.state = "done"
        time.sleep(0.5)  # a learner's statement
        ended = time.monotonic()  # the statement ends after this (Traffic's own clock reads later)
    worker.join(10)
    assert len(dumped) == 1 and dumped[0] - ended >= 0.3  # only after `quiet` seconds without a statement
