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
    # JobManager and TaskManagers start together, so a TaskManager often asks before the ResourceManager is up:
    # Flink then waits this long before asking again (default 10 s, most of a start). An attempt is cheap.
    "cluster.registration.error-delay": "200ms",
    # A job's first slot waited for two timers that batch requests on big clusters: the ResourceManager checks
    # requirements 50 ms after they change, and a JobMaster declares its slot requests up to 20 ms apart. Without
    # them a task's SCHEDULED -> DEPLOYING went from 94 ms to 30-44 ms (measured, a lab's batch COUNT); the checks
    # are cheap at a class's size (a few TaskManagers).
    "slotmanager.requirement-check.delay": "0ms",
    "slot.request.max-interval": "0ms",
}


#: What the REST API (and the Web UI on it) of a flinklab cluster offers: narrower than Flink's defaults, measured
#: on Flink 2.2.1. Flink's REST API has no authentication, so these take away what neither the gateway nor the Web
#: UI needs. What they cannot take away: the gateway submits a job with `POST /jobs` (a JobGraph and its jars,
#: JobSubmitHandler) and cancels one with `PATCH /jobs/:id`, and no option turns those off (docs/security.md).
REST_OPTIONS: dict[str, str] = {
    # The /jars endpoints (upload, list, run, plan, delete) run any jar a caller uploads; only the Web UI's
    # "Submit New Job" page and the Kubernetes operator's FlinkSessionJob use them. Off: `POST /jars/upload` answers
    # 400 {"errors":["POST request not allowed"]}, `GET /jars` 404; the Web UI hides the page (`/config` features).
    "web.submit.enable": "false",
    # Flink's default, said out loud: the Kubernetes operator defaults it to false. It only shows the Web UI's
    # Cancel button (`PATCH /jobs/:id?mode=cancel` answers 202 either way, measured), which a teacher uses.
    "web.cancel.enable": "true",
    # Flink's default `*` lets every web page a user's browser opens read the REST API (job ids, configuration),
    # and `GET /jobs/:id/yarn-cancel` cancels a job (202, measured). The Web UI is served from the REST port itself
    # and needs no CORS; `.invalid` names no host (RFC 2606), so no page's origin ever matches.
    "web.access-control-allow-origin": "http://flinklab.invalid",
    # Flink's defaults, pinned: when on, any caller has the JobManager sample the TaskManagers' threads (flame
    # graphs) or run a profiler on a JVM and keep its files (profiling). Off, a flame graph answers {"endTimestamp":-2}
    # and `/taskmanagers/:id/profiler` 404.
    "rest.flamegraph.enabled": "false",
    "rest.profiling.enabled": "false",
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
    """Every option the clusters flinklab starts share: the shape from `settings`, the behaviour, the REST API."""
    return {**shape_options(settings), **BEHAVIOUR_OPTIONS, **REST_OPTIONS}
