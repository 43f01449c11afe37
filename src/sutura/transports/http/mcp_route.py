"""``/mcp``: MCP's streamable HTTP transport, mounted beside ``/v1`` behind the same guards.

The ``Host`` of every request is checked by the gate (:mod:`sutura.transports.http.gate`),
``/mcp`` included. A method other than ``POST`` is refused first (``405``; see
:mod:`.mcp_request`). The MCP transport specification also asks a server to check ``Origin``
against DNS rebinding, so next: an ``Origin``, when sent, must be an http(s) origin on a host
the server answers to (``server.allowed_hosts``, or its loopback names; when any host is
answered, the request's own ``Host``), or the request is ``403 host_not_allowed``. Then the
guards every ``/v1`` route has authenticate it (and take a rate limit token), the body's type
and the reply's are checked, the body is read and checked as one JSON-RPC message
(:mod:`.mcp_request`), and it is served on behalf of the caller the guards established.

>>> origin_allowed(b"http://127.0.0.1:5173", ("127.0.0.1",), b"x")
True
>>> origin_allowed(b"null", ("127.0.0.1",), b"x"), origin_allowed(b"file://x", None, b"x")
(False, False)
>>> origin_allowed(b"https://api.example.org", None, b"api.example.org:443")
True
"""

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol, cast
from urllib.parse import urlsplit

from litestar.connection import ASGIConnection
from litestar.handlers import ASGIRouteHandler, BaseRouteHandler
from litestar.types import Receive, Scope, Send
from mcp_types import JSONRPCMessage

from sutura.boundary.admission import Shedding
from sutura.boundary.service import Service
from sutura.core.tool.caller import Caller
from sutura.transports.http.auth import CALLER_KEY, Guard
from sutura.transports.http.errors import HttpFailureError
from sutura.transports.http.gate import host_allowed, json_guard
from sutura.transports.http.guards import chained, guarded_asgi
from sutura.transports.http.mcp_request import (
    enveloped,
    json_accepted,
    post_only,
    read_message,
    replayed,
)
from sutura.transports.http.request_ids import header_of
from sutura.transports.http.wire import FailureCode


class McpEndpoint(Protocol):
    """What answers ``/mcp`` (MCP's streamable HTTP transport). The composer that starts the
    server hands it in (``sutura serve``: :func:`sutura.transports.mcp.remote.remote_mcp`), so
    this app imports nothing of the MCP transport."""

    def running(self) -> AbstractAsyncContextManager[None]:
        """Serve requests for the block."""
        ...

    async def serve(
        self, caller: Caller, scope: Any, receive: Any, send: Any, message: JSONRPCMessage
    ) -> None:
        """Answer one HTTP request (an ASGI scope, receive and send) on behalf of ``caller``;
        its body, already read (the one ``message`` it holds), is the first thing ``receive``
        hands over."""
        ...


McpOf = Callable[[Service, Shedding], McpEndpoint]
"""The ``/mcp`` endpoint over an opened service, sharing the app's admission slots."""


def _host_name(authority: str) -> str:
    return host if (host := urlsplit(f"//{authority}").hostname) is not None else ""


def origin_allowed(origin: bytes, allowed: Sequence[str] | None, host: bytes | None) -> bool:
    """Whether an ``Origin`` header names a host this server answers to (any port)."""
    parts = urlsplit(origin.decode("latin-1").strip())
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        return False
    if allowed is not None:
        return host_allowed(allowed, parts.netloc.encode("latin-1"))
    own = "" if host is None else _host_name(host.decode("latin-1").strip())
    return _host_name(parts.netloc) == own.lower()


def origin_guard(allowed: Sequence[str] | None) -> Guard:
    """A guard refusing an ``Origin`` naming a host this server does not answer to."""

    async def guard(connection: ASGIConnection[Any, Any, Any, Any], _h: BaseRouteHandler) -> None:
        origin = header_of(connection.scope, b"origin")
        if origin is not None:
            host = header_of(connection.scope, b"host")
            if not origin_allowed(origin, allowed, host):
                raise HttpFailureError.of(FailureCode.HOST_NOT_ALLOWED)

    return guard


class McpBounds:
    """``server.max_body_bytes`` and ``server.request_timeout_seconds``, as ``/mcp`` applies
    them to a body."""

    def __init__(self, max_body_bytes: int, timeout: float) -> None:
        self.max_body_bytes = max_body_bytes
        self.timeout = timeout


def mcp_route(
    remote: McpEndpoint,
    guards: Sequence[Guard],
    allowed: Sequence[str] | None,
    bounds: McpBounds,
) -> ASGIRouteHandler:
    """The ``/mcp`` mount: the method, ``Origin``, the ``/v1`` guards, the body's and the
    reply's types, the body itself, then the SDK's transport."""
    checks = [post_only, origin_guard(allowed), *guards, json_guard, json_accepted]

    @guarded_asgi("/mcp", is_mount=True, guards=chained(checks), copy_scope=False)
    async def mcp(scope: Scope, receive: Receive, send: Send) -> None:
        caller: Caller = scope["state"][CALLER_KEY]  # left there by the authentication guard
        # litestar's and starlette's ASGI types describe the same three values.
        asgi_scope, asgi_receive, asgi_send = cast("Any", (scope, receive, send))
        read = await read_message(
            scope["headers"], asgi_receive, limit=bounds.max_body_bytes, seconds=bounds.timeout
        )
        again = replayed(read.body, asgi_receive)
        await remote.serve(caller, asgi_scope, again, enveloped(asgi_send), read.message)

    return mcp
