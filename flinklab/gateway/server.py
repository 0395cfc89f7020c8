"""The gateway process: `python -m flinklab.gateway --port 8083 --rest-url http://127.0.0.1:8081`.

Starts PyFlink's JVM, warms the planner up, then serves Flink's SQL Gateway REST API with uvicorn. It answers
`/info` only once it is warm, so whoever waits for it (flink-up) knows the first statement will be quick.
SIGTERM stops it: sessions are closed (their unfinished jobs cancelled) and the JVM shut down.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path

from flinklab.gateway.service import DEFAULT_CHECK_INTERVAL, DEFAULT_IDLE_TIMEOUT, GatewayConfig, GatewayService


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


def build_service(rest_url: str | None, state_dir: Path, idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
                  check_interval: float = DEFAULT_CHECK_INTERVAL) -> GatewayService:
    """A warm GatewayService on this process's PyFlink JVM, for the cluster at `rest_url` (None: the recorded
    cluster of `state_dir`, looked up as each session opens)."""
    from flinklab.cluster.base import resolve_rest_url
    from flinklab.gateway.jvm import Jvm, launch_gateway
    from flinklab.settings import Settings

    # the backend is not the gateway's business (and one registered only in flink-up's process is unknown here)
    settings = Settings.from_env(state_dir=state_dir, backend="auto")
    jvm = Jvm(launch_gateway(settings))
    target = rest_url or (lambda: resolve_rest_url(settings))
    service = GatewayService(jvm, GatewayConfig(target, idle_timeout, check_interval))
    service.warm_up()
    return service


class EmbeddedGateway:
    """A gateway served from a thread of this process (`sql-client.sh embedded`, tests): same API, same code."""

    def __init__(self, service: GatewayService, host: str = "127.0.0.1", port: int = 0):
        import socket

        import uvicorn

        from flinklab.gateway.app import create_app

        self.service = service
        self._socket = socket.socket()
        self._socket.bind((host, port))
        self.host, self.port = self._socket.getsockname()[:2]
        config = uvicorn.Config(create_app(service), log_level="warning", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]},
                                        name="flinklab-gateway-http", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> EmbeddedGateway:
        self._thread.start()
        while not self._server.started and self._thread.is_alive():
            self._thread.join(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)
        self._socket.close()
        self.service.stop()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    log = logging.getLogger("flinklab.gateway")
    log.info("starting: cluster %s, binding %s:%s", args.rest_url or "as recorded", args.host, args.port)
    try:
        service = build_service(args.rest_url, args.state_dir, args.idle_timeout, args.check_interval)
    except Exception as exc:  # noqa: BLE001 - the process log is where flink-up points the user
        log.error("could not start: %s", exc)
        return 2
    import uvicorn

    from flinklab.gateway.app import create_app

    server = uvicorn.Server(uvicorn.Config(create_app(service), host=args.host, port=args.port,
                                           log_level="warning", lifespan="off"))

    def stop(signum: int, frame: object) -> None:
        server.should_exit = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log.info("serving Flink's SQL Gateway REST API on http://%s:%s", args.host, args.port)
    try:
        server.run()
    finally:
        service.stop()
        service.jvm.shutdown()
    log.info("stopped")
    return 0 if server.started else 2


if __name__ == "__main__":
    sys.exit(main())
