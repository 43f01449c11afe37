"""Guards run as one: Litestar copies the route handler once per guard on every request, so a
route's guards are chained into one guard that runs each in order (the first refusal stops
the rest, as it would as separate guards)."""

from collections.abc import Sequence
from typing import Any

from litestar.connection import ASGIConnection
from litestar.handlers import BaseRouteHandler

from sutura.transports.http.auth import Guard


def chained(guards: Sequence[Guard]) -> list[Guard]:
    """``guards`` as a one-guard list running each in order."""
    ordered = tuple(guards)

    async def in_order(connection: ASGIConnection[Any, Any, Any, Any], h: BaseRouteHandler) -> None:
        for guard in ordered:
            await guard(connection, h)

    return [in_order]
