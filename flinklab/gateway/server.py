"""The gateway service built on this process's JVM, and the gateway served from a thread of this process.

The gateway process itself (`python -m flinklab.environment.serve_gateway`) lives in flinklab.environment: it
knows which cluster is recorded, which the gateway does not.
"""

from __future__ import annotations

import threading
from typing import Callable

from flinklab.access import new_token
from flinklab.gateway.service import DEFAULT_CHECK_INTERVAL, DEFAULT_IDLE_TIMEOUT, GatewayConfig, GatewayService
from flinklab.settings import Settings


def build_service(target: str | Callable[[], str], settings: Settings, idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
                  check_interval: float = DEFAULT_CHECK_INTERVAL, image: Callable[[], str] | None = None
                  ) -> GatewayService:
    """A warm GatewayService on this process's PyFlink JVM, for the cluster at `target` (a URL, or a function
    asked as each session opens); `image()` names the image a container JVM runs on a host without Java."""
    from flinklab.gateway.jvm import Jvm, launch_gateway

    jvm = Jvm(launch_gateway(settings, image))
    service = GatewayService(jvm, GatewayConfig(target, idle_timeout, check_interval, settings.state_dir))
    service.warm_up()
    return service


class EmbeddedGateway:
    """A gateway served from a thread of this process (`sql-client.sh embedded`, tests): same API, same code."""

    def __init__(self, service: GatewayService, host: str = "127.0.0.1", port: int = 0, token: str | None = None):
        import socket

        import uvicorn

        from flinklab.gateway.app import create_app

        self.service = service
        #: what a client sends to get in (auth.py); a new one unless given
        self.token = token or new_token()
        self._socket = socket.socket()
        self._socket.bind((host, port))
        self.host, self.port = self._socket.getsockname()[:2]
        config = uvicorn.Config(create_app(service, token=self.token), log_level="warning", lifespan="on")
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
