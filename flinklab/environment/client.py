"""The SQL client as this machine's environment connects it: to flinklab's own gateway, whose cluster is the
recorded one (checked first), or, with `embedded` (`sql-client.sh embedded`), to a gateway started in this
process for this one client.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from flinklab.settings import Settings
from flinklab.sqlclient.client import SqlClient

if TYPE_CHECKING:
    from flinklab.gateway.server import EmbeddedGateway


class LabSqlClient(SqlClient):
    """flinklab.sqlclient's SqlClient as this machine's lab environment connects it: told which cluster is the
    recorded one; `embedded` starts a gateway in this process on it (stopped, with its JVM, when the client
    closes)."""

    def __init__(self, settings: Settings, url: str | None = None, *, embedded: bool = False,
                 cluster_url: str | None = None):
        from flinklab.cluster.base import resolve_rest_url

        # flinklab's own gateway: its cluster is the recorded one (or `cluster_url`); a gateway named by URL is
        # taken as it is
        cluster_url = cluster_url or (resolve_rest_url(settings) if url is None else None)
        on_close, token = None, None
        if embedded:
            self.settings, self.cluster_url = settings, cluster_url
            self.check_cluster()  # before a JVM starts: no cluster is the likelier mistake
            gateway = start_embedded(settings, cluster_url or resolve_rest_url(settings))
            url, token = gateway.url, gateway.token

            def on_close() -> None:
                gateway.stop()
                gateway.service.jvm.shutdown()

        try:
            super().__init__(settings, url, cluster_url=cluster_url, on_close=on_close, token=token)
        except BaseException:
            if getattr(self, "_on_close", None) is not None:  # failed before the base class closed it
                self.close()
            raise


def start_embedded(settings: Settings, cluster_url: str) -> EmbeddedGateway:
    """A gateway served from a thread of this process for the cluster at `cluster_url`, started."""
    from flinklab.cluster.base import recorded_image
    from flinklab.gateway import jvm_archive
    from flinklab.gateway.server import EmbeddedGateway, build_service

    # the backend is not the gateway's business, as in the gateway process
    gateway_settings = replace(settings, backend="auto")
    # its JVM maps the class-data archive a gateway process dumped (flinklab/gateway/jvm_archive.py), if there is one
    service, _ = jvm_archive.launched(gateway_settings, lambda each: build_service(
        cluster_url, each, image=lambda: recorded_image(settings)), record=False)
    return EmbeddedGateway(service).start()
