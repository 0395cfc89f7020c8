"""The gateway's door: a request gets in with the lab's token, or from a loopback socket of the gateway's own user.

- `Authorization: Bearer <token>` (flinklab's own clients, and any client that can send a header: Flink's SQL
  client through `FLINK_REST_CLIENT_HEADERS`, the DB-API driver through its `http_client`, an OpenAPI client).
- Without the header, a connection from 127.0.0.1 or ::1 whose socket belongs to the same Unix user as the
  gateway (the owner of a loopback peer is in /proc/net/tcp and tcp6): a tool that can only be given a host and a
  port keeps working for the lab's own user, who could read the token file anyway. Everyone else gets 401.
- `/info` and `/api_versions` stay open (under every version prefix): they run no SQL and say only what every Flink
  gateway says (product and version), and readiness probes and clients' version negotiation ask them first.

A 401 is Flink's error body (`{"errors": [...]}`); it never repeats what the request sent.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from flinklab.access import HEADER, SCHEME

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

_OPEN = frozenset(
    f"{prefix}/{name}" for prefix in ("", "/v1", "/v2", "/v3", "/v4") for name in ("info", "api_versions")
)
#: Longer Authorization headers are not compared (a token is 43 characters)
_MAX_HEADER = 512
_HEADER = HEADER.lower().encode("ascii")
_PREFIX = f"{SCHEME} ".encode("ascii")
UNAUTHORIZED = (
    "Unauthorized: this SQL gateway needs the token flink-up wrote (send `Authorization: Bearer <token>`; the "
    "token is in the state dir, see `flinklab status`)."
)
_BODY = json.dumps({"errors": [UNAUTHORIZED]}).encode("utf-8")


def _hex_ipv4(address: str, port: int) -> str:
    packed = ipaddress.IPv4Address(address).packed
    return f"{int.from_bytes(packed, 'little'):08X}:{port:04X}"


def _hex_ipv6(address: str, port: int) -> str:
    packed = ipaddress.IPv6Address(address).packed  # /proc prints each 32-bit word in host (little-endian) order
    words = "".join(f"{int.from_bytes(packed[i:i + 4], 'little'):08X}" for i in range(0, 16, 4))
    return f"{words}:{port:04X}"


def socket_owner(peer: tuple[str, int], local: tuple[str, int], proc_net: str = "/proc/net") -> int | None:
    """The uid owning the socket at `peer` that is connected to `local` (both on this machine), from
    /proc/net/tcp or tcp6; None when no such socket is listed (not this network namespace, or gone)."""
    try:
        version = ipaddress.ip_address(peer[0]).version
        if version == 4:
            files, key = ("tcp",), (_hex_ipv4(*peer), _hex_ipv4(*local))
        else:
            files, key = ("tcp6",), (_hex_ipv6(*peer), _hex_ipv6(*local))
    except ValueError:
        return None
    for name in files:
        try:
            with open(f"{proc_net}/{name}", encoding="ascii") as table:
                next(table, None)  # the header line
                for line in table:
                    fields = line.split()
                    if len(fields) > 7 and fields[1] == key[0] and fields[2] == key[1]:
                        return int(fields[7])
        except (OSError, ValueError):
            return None
    return None


def _loopback(host: str) -> bool:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


class TokenGate:
    """ASGI middleware in front of the gateway's app: lets a request through when :meth:`allowed`, else 401."""

    def __init__(self, app: App, token: str, uid: int | None = None):
        self.app = app
        self._token = token.encode("ascii")
        self._uid = os.geteuid() if uid is None else uid

    def allowed(self, scope: Scope) -> bool:
        if scope.get("path", "") in _OPEN:
            return True
        for name, value in scope.get("headers", ()):
            if name == _HEADER:
                # a header that is present but wrong is refused, not passed on to the peer check
                return (len(value) <= _MAX_HEADER and value.startswith(_PREFIX)
                        and hmac.compare_digest(value[len(_PREFIX):].strip(), self._token))
        client, server = scope.get("client"), scope.get("server")
        if not client or not server or not _loopback(client[0]):
            return False
        return socket_owner((client[0], int(client[1])), (server[0], int(server[1]))) == self._uid

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.allowed(scope):
            await self.app(scope, receive, send)
            return
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(_BODY)).encode()),
                                (b"www-authenticate", b'Bearer realm="flinklab SQL gateway"')]})
        await send({"type": "http.response.body", "body": _BODY})
