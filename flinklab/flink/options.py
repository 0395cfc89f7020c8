"""Flink's options, once: what every cluster flinklab starts or describes sets, whoever runs it.

The local backend writes them into its config.yaml, the docker backend into FLINK_PROPERTIES, and
docker-compose.yml and deploy/kubernetes/flinklab-class.yaml spell them out for users (tests/test_compose_file.py
and tests/test_deploy_kubernetes.py compare both files with this table). Options of one way of running Flink only
(bind addresses, ports, temp dirs, the JobManager's container name) stay with that backend.
"""

from __future__ import annotations

from flinklab.settings import Settings

#: `resourcemanager.standalone.start-up-time` of the clusters flinklab starts (local, docker, docker-compose.yml):
#: long, so that a streaming job waits for a free slot instead of failing at once (Flink's standalone resource
#: manager fails unfulfillable requests after this period). Under pekko's longest timer (about 248 days).
STANDALONE_START_UP_TIME = "30d"

#: How a flinklab cluster behaves, whatever its size: the same for the laptop's and a class's cluster.
BEHAVIOUR_OPTIONS: dict[str, str] = {
    "parallelism.default": "1",
    "jobmanager.execution.failover-strategy": "region",
    # The default 10 s is too short for a JVM on a busy 2-core laptop ("Could not create actor system").
    "pekko.startup-timeout": "60s",
    # A query submitted while a TaskManager is dead fails after a minute instead of the default 5.
    "slot.request.timeout": "60s",
    # A batch job reserves 512 network buffers by default (sort shuffle): a class's concurrent batch queries
    # ran out of them on one TaskManager. The labs' shuffles are tiny.
    "taskmanager.network.sort-shuffle.min-buffers": "16",
    # A standalone cluster fails a streaming job at once when no slot is free (after a start-up period that
    # defaults to slot.request.timeout): a class's queries would fail while classmates' jobs hold the slots.
    # With a long start-up period they wait for a slot (up to slot.request.timeout), as batch jobs do.
    "resourcemanager.standalone.start-up-time": STANDALONE_START_UP_TIME,
}


def shape_options(settings: Settings) -> dict[str, str]:
    """The cluster's size from the settings: memory of each JVM and slots per TaskManager (a class's Kubernetes
    cluster sizes these itself)."""
    return {
        "jobmanager.memory.process.size": settings.jobmanager_memory,
        "taskmanager.memory.process.size": settings.taskmanager_memory,
        "taskmanager.numberOfTaskSlots": str(settings.slots),
    }


def cluster_options(settings: Settings) -> dict[str, str]:
    """Every option the clusters flinklab starts share: the shape from `settings`, then the behaviour."""
    return {**shape_options(settings), **BEHAVIOUR_OPTIONS}
