"""Bearer authentication on ``/v1/*``, and the rule for when a deployment may go without it.

The token is ``security.access_token``; a presented token is compared in constant time
(``hmac.compare_digest`` over bytes). A token is required unless the deployment is a
development one bound to a loopback address, and ``sutura serve`` refuses to start otherwise.

>>> bind_problems(Environment.DEVELOPMENT, "127.0.0.1", token=None)
[]
>>> bind_problems(Environment.DEVELOPMENT, "0.0.0.0", token=None)
['server.host: binding 0.0.0.0 (not a loopback address) requires security.access_token']
"""

import hmac
import ipaddress
from collections.abc import Awaitable, Callable
from typing import Any

from litestar.connection import ASGIConnection
from litestar.handlers import BaseRouteHandler

from sutura.core.settings import Environment
from sutura.core.tool.caller import Caller, EveryAudience
from sutura.core.tool.capability import Scope
from sutura.transports.http.errors import HttpFailureError
from sutura.transports.http.wire import FailureCode

Guard = Callable[[ASGIConnection[Any, Any, Any, Any], BaseRouteHandler], Awaitable[None]]


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine (``localhost`` or a loopback address).

    >>> [is_loopback(h) for h in ("127.0.0.1", "::1", "localhost", "0.0.0.0", "example.org")]
    [True, True, True, False, False]
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind_problems(environment: Environment, host: str, *, token: str | None) -> list[str]:
    """Every reason a server must not start on ``host`` with this token, as operator sentences."""
    if token:
        return []
    if environment is not Environment.DEVELOPMENT:
        return [f"security.access_token: required in the {environment.value} environment"]
    if not is_loopback(host):
        return [
            f"server.host: binding {host} (not a loopback address) requires security.access_token"
        ]
    return []


def caller_of(request_id: str, *, token: bool) -> Caller:
    """The caller of a request: the one identity this deployment knows (the holder of its static
    token, or, without a token, whoever reaches its loopback address), holding every scope."""
    return Caller(
        subject="static-token" if token else "local:http",
        scopes=frozenset(Scope),
        audiences=EveryAudience.EVERY,
        request_id=request_id,
    )


def bearer_guard(token: str) -> Guard:
    """A guard admitting only ``Authorization: Bearer <token>``, compared in constant time."""
    expected = token.encode("utf-8")

    # async on purpose: litestar runs a synchronous guard in a worker thread.
    async def guard(
        connection: ASGIConnection[Any, Any, Any, Any], _handler: BaseRouteHandler
    ) -> None:
        scheme, _, presented = connection.headers.get("authorization", "").partition(" ")
        # Header values are latin-1 on the wire; compare their bytes, whatever they hold.
        given = presented.strip().encode("latin-1", errors="replace")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given, expected):
            raise HttpFailureError.of(FailureCode.UNAUTHORIZED, {"WWW-Authenticate": "Bearer"})

    return guard
