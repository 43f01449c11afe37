"""Guards run as one, on the route handler itself.

Litestar copies the route handler once per guard on every request (so a guard cannot change
the handler it is given). A route's guards are chained into one guard that runs each in order
(the first refusal stops the rest, as it would as separate guards), and the route handlers
here (:class:`GuardedRoute`, :class:`guarded_asgi`) hand it the handler itself: no guard here
reads or changes the handler, and the copy cost more than the guards.
"""

from collections.abc import Awaitable, Sequence
from typing import Any, cast

from litestar.connection import ASGIConnection
from litestar.handlers import ASGIRouteHandler, BaseRouteHandler, HTTPRouteHandler

from sutura.transports.http.auth import Guard


def chained(guards: Sequence[Guard]) -> list[Guard]:
    """``guards`` as a one-guard list running each in order."""
    ordered = tuple(guards)

    async def in_order(connection: ASGIConnection[Any, Any, Any, Any], h: BaseRouteHandler) -> None:
        for guard in ordered:
            await guard(connection, h)

    return [in_order]


class _Uncopied(BaseRouteHandler):
    """A route handler whose guards are given the handler itself, not a copy of it."""

    async def authorize_connection(self, connection: ASGIConnection[Any, Any, Any, Any]) -> None:
        """Run every guard in scope, in order."""
        for guard in self.resolve_guards():  # each made async by litestar when resolved
            await cast("Awaitable[None]", guard(connection, self))


class GuardedRoute(_Uncopied, HTTPRouteHandler):
    """Litestar's HTTP route handler (``get``, ``post``: give ``http_method``), its guards
    given the handler itself."""


class guarded_asgi(_Uncopied, ASGIRouteHandler):  # noqa: N801  # a decorator, as litestar's
    """Litestar's ``asgi``, its guards given the handler itself."""
