"""A DB-API connection: one session on a SQL gateway, found as `sql-client.sh` finds it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flinklab.dbapi.cursor import Cursor
from flinklab.dbapi.errors import InterfaceError, flink_error, flinklab_error
from flinklab.errors import FlinklabError
from flinklab.settings import Settings
from flinklab.sqlclient.client import SqlClient
from flinklab.sqlclient.protocol import GatewayError


def gateway_client(settings: Settings, url: str | None = None, token: str | None = None) -> SqlClient:
    """A client of the gateway at `url`, else of the one `flink-up` started, exactly as `sql-client.sh` makes it:
    flinklab's own gateway gets the state dir's token and its cluster is checked first; another gateway gets
    `token` (or none). Raises FlinklabError (one line and a hint) when nothing answers or the token is refused."""
    if token is None:
        from flinklab.environment.client import LabSqlClient

        return LabSqlClient(settings, url)
    from flinklab.cluster.base import resolve_rest_url

    return SqlClient(settings, url, cluster_url=resolve_rest_url(settings) if url is None else None, token=token)


def connect(url: str | None = None, token: str | None = None, **session_config: Any) -> Connection:
    """A connection (one gateway session) to the gateway at `url` (default: the one `flink-up` started, with its
    token), with `session_config` as the session's options. Raises OperationalError when no gateway answers."""
    return open_connection(Settings.from_env(), url, token, session_config)


def open_connection(settings: Settings, url: str | None = None, token: str | None = None,
                    session_config: Mapping[str, Any] | None = None) -> Connection:
    """`connect` with the settings given (the notebook and the tests pass theirs)."""
    try:
        client = gateway_client(settings, url, token)
    except FlinklabError as exc:
        raise flinklab_error(exc) from None
    try:
        return Connection(client, session_config or {})
    except BaseException:
        client.close()
        raise


class Connection:
    """PEP 249's connection: one session on the gateway, its cursors running statements in it in turn."""

    def __init__(self, client: SqlClient, session_config: Mapping[str, Any]):
        self._client = client
        self.url = client.url
        try:
            self.session = client.api.open_session({k: str(v) for k, v in session_config.items()})
        except GatewayError as exc:
            raise flink_error(exc) from None
        except FlinklabError as exc:
            raise flinklab_error(exc) from None
        self._cursors: list[Cursor] = []
        self.closed = False

    @property
    def api(self) -> Any:
        """The protocol client (flinklab.sqlclient.protocol.GatewayClient) the cursors use."""
        if self.closed:
            raise InterfaceError("The connection is closed.")
        return self._client.api

    def cursor(self) -> Cursor:
        cursor = Cursor(self)
        self._cursors.append(cursor)
        return cursor

    def commit(self) -> None:
        """Flink SQL has no transactions: every statement takes effect when it runs."""
        if self.closed:
            raise InterfaceError("The connection is closed.")

    def rollback(self) -> None:
        """Nothing to undo (no transactions); kept so that tools that roll back after an error (pandas) see the
        error itself."""
        self.commit()

    def close(self) -> None:
        """Close every cursor (cancelling a query still running), then the gateway session."""
        if self.closed:
            return
        for cursor in self._cursors:
            cursor.close()
        try:
            self._client.api.close_session(self.session)
        except (GatewayError, FlinklabError):
            pass  # the gateway forgets an idle session anyway
        self._client.close()
        self.closed = True

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
