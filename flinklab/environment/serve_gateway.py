"""The gateway process: `python -m flinklab.environment.serve_gateway --port 8083 --state-dir DIR [--rest-url URL]`.

Starts PyFlink's JVM, loads the planner, then serves Flink's SQL Gateway REST API with uvicorn, and warms the
planner up on a thread (flinklab/gateway/warmup.py) while the cluster starts. It answers `/info` only once the
planner is loaded; `POST /flinklab/warm-up` (flink-up, once the cluster is ready) runs one tiny job on the cluster.
A gateway whose JVM records its classes (it found no class-data archive, flinklab/gateway/jvm_archive.py) dumps
them once its warm-ups are over and no statement came for ARCHIVE_QUIET seconds (a few seconds' pause, once), not
at its stop. SIGTERM stops it: sessions are closed (their unfinished jobs cancelled) and the JVM shut down. It
lives here, not in flinklab.gateway, because it asks the cluster record which cluster (and image) is the current
one.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path

from flinklab.access import read_token
from flinklab.cluster.base import recorded_image
from flinklab.flink.waiting import Wait
from flinklab.gateway import jvm_archive
from flinklab.gateway.service import DEFAULT_CHECK_INTERVAL, DEFAULT_IDLE_TIMEOUT, GatewayService
from flinklab.settings import Settings


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="flinklab-gateway", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8083)
    parser.add_argument("--rest-url", help="the Flink cluster's REST endpoint (default: the cluster that "
                        "flink-up recorded in --state-dir, read when a session opens)")
    parser.add_argument("--state-dir", type=Path, required=True, help="for the JVM's logs")
    parser.add_argument("--idle-timeout", type=float, default=DEFAULT_IDLE_TIMEOUT, help="seconds")
    parser.add_argument("--check-interval", type=float, default=DEFAULT_CHECK_INTERVAL, help="seconds")
    return parser.parse_args(argv)


def recorded_service(rest_url: str | None, settings: Settings, idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
                     check_interval: float = DEFAULT_CHECK_INTERVAL) -> GatewayService:
    """A warm GatewayService for the cluster at `rest_url` (None: the recorded cluster of the settings' state
    dir, looked up as each session opens)."""
    from flinklab.cluster.base import resolve_rest_url
    from flinklab.gateway.server import build_service

    target = rest_url or (lambda: resolve_rest_url(settings))
    return build_service(target, settings, idle_timeout, check_interval, image=lambda: recorded_image(settings))


#: Seconds without a statement, after the warm-ups, before a recording gateway dumps its classes: the dump pauses
#: the JVM for about 5 s on 2 cores (statements wait, the HTTP side answers), so it waits for a moment the learner
#: is reading or writing, not running (10 s fell on a README reader's first statement)
ARCHIVE_QUIET = 30.0
#: The variable that sets those seconds (`flinklab prepare` sets 0: nobody is there to pause)
ARCHIVE_QUIET_ENV = "FLINKLAB_ARCHIVE_QUIET"


def archive_quiet(env: dict[str, str] | os._Environ[str] = os.environ) -> float:
    """ARCHIVE_QUIET, or the seconds ARCHIVE_QUIET_ENV gives (a number from 0 to 3600; anything else: the default)."""
    try:
        value = float(env.get(ARCHIVE_QUIET_ENV, ARCHIVE_QUIET))
    except ValueError:
        return ARCHIVE_QUIET
    return value if 0 <= value <= 3600 else ARCHIVE_QUIET
#: The longest the dump waits for the cluster's warm-up after the planner's (a remote cluster gets none)
CLUSTER_WARM_UP_WAIT = 120.0


def dump_when_quiet(service: GatewayService, archive: jvm_archive.GatewayArchive,
                    quiet: float = ARCHIVE_QUIET) -> bool:
    """Once the warm-ups are over (they load most of what learners' statements need) and no statement came for
    `quiet` seconds, dump the classes the JVM loaded into `archive` (the next gateway, and `sql-client.sh
    embedded`, map it); True once it is in place. The stop then costs nothing more than a stop."""
    planner, cluster = service.planner_warm_up, service.cluster_warm_up
    Wait("the planner's warm-up", 600, 0.5).poll(lambda: planner.state not in ("idle", "running"))
    Wait("the cluster's warm-up", CLUSTER_WARM_UP_WAIT, 0.5).poll(lambda: cluster.state in ("done", "failed"))
    time.sleep(quiet)  # the quiet moment begins when the warm-ups end: flink-up returns then, and a call may follow
    while True:
        service.traffic.wait_quiet(quiet)
        if cluster.state != "running":
            return jvm_archive.dump(service.jvm, archive)
        Wait("the cluster's warm-up", CLUSTER_WARM_UP_WAIT, 0.5).poll(lambda: cluster.state != "running")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    log = logging.getLogger("flinklab.gateway")
    log.info("starting: cluster %s, binding %s:%s", args.rest_url or "as recorded", args.host, args.port)
    try:
        # the backend is not the gateway's business (and one registered only in flink-up's process is unknown here)
        settings = Settings.from_env(state_dir=args.state_dir, backend="auto")
        token = read_token(args.state_dir)  # flink-up wrote it before it started this process
        # the JVM maps its class-data archive, or records one to dump at the stop
        service, archive = jvm_archive.launched(settings, lambda each: recorded_service(
            args.rest_url, each, args.idle_timeout, args.check_interval), record=True)
    except Exception as exc:  # noqa: BLE001 - the process log is where flink-up points the user
        log.error("could not start: %s", exc)
        return 2
    import uvicorn

    from flinklab.gateway.app import create_app

    server = uvicorn.Server(uvicorn.Config(create_app(service, token=token), host=args.host, port=args.port,
                                           log_level="warning", lifespan="on"))

    def stop(signum: int, frame: object) -> None:
        server.should_exit = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log.info("serving Flink's SQL Gateway REST API on http://%s:%s", args.host, args.port)
    service.planner_warm_up.start()  # while the cluster starts; a statement that comes first plans as before
    if archive.record:
        threading.Thread(target=dump_when_quiet, args=(service, archive, archive_quiet()),
                         name="flinklab-class-archive", daemon=True).start()
    try:
        server.run()
    finally:
        service.stop()
        service.jvm.shutdown()
    log.info("stopped")
    return 0 if server.started else 2


if __name__ == "__main__":
    sys.exit(main())
