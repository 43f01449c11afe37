"""Rate limits per caller: a token bucket each, refilled at ``server.rate_limit.per_minute``
and holding at most ``server.rate_limit.burst`` requests.

The bucket is the caller's subject; a caller without identity (no token: whoever reaches the
loopback address) is told apart by its client address instead. A request finding its bucket
empty is ``429 rate_limited`` with ``Retry-After``: the whole seconds until one request is
allowed again. Every capability route and ``/mcp`` count; ``/health``, the API document and
``/metrics`` do not.

At most :data:`MAX_BUCKETS` buckets are kept: past that, the full ones (callers idle long
enough to have refilled) are dropped, and if none is full the oldest is.

>>> bucket = RateLimiter(per_minute=60, burst=2)
>>> [bucket.wait("a", now=0.0) for _ in range(3)], bucket.wait("b", now=0.0)
([0.0, 0.0, 1.0], 0.0)
>>> bucket.wait("a", now=1.0)
0.0
"""

import math
from typing import Any, Final

import anyio
from litestar.connection import ASGIConnection
from litestar.handlers import BaseRouteHandler

from sutura.core.tool.caller import Caller
from sutura.transports.http.auth import Guard, caller_of
from sutura.transports.http.errors import HttpFailureError
from sutura.transports.http.wire import FailureCode

MAX_BUCKETS: Final = 10_000


class RateLimiter:
    """Token buckets by key; ``wait`` takes one token, or says how long until there is one."""

    def __init__(self, *, per_minute: int, burst: int) -> None:
        self._rate = per_minute / 60.0
        self._burst = float(burst)
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, as of)
        self.limited = 0

    def wait(self, key: str, *, now: float) -> float:
        """Take a token for ``key`` (0.0), or the seconds until one is due (none taken)."""
        tokens, since = self._buckets.pop(key, (self._burst, now))
        tokens = min(self._burst, tokens + (now - since) * self._rate)
        if tokens >= 1.0:
            self._keep(key, tokens - 1.0, now)
            return 0.0
        self._keep(key, tokens, now)
        self.limited += 1
        return (1.0 - tokens) / self._rate

    def _keep(self, key: str, tokens: float, now: float) -> None:
        if len(self._buckets) >= MAX_BUCKETS:
            self._forget(now)
        self._buckets[key] = (tokens, now)  # re-inserted last: the dict is oldest-first

    def _forget(self, now: float) -> None:
        full = [
            key
            for key, (tokens, since) in self._buckets.items()
            if tokens + (now - since) * self._rate >= self._burst
        ]
        for key in full or [next(iter(self._buckets))]:
            del self._buckets[key]


def _key(caller: Caller, connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    """The caller's subject, or its client address when it has no identity."""
    if not caller.subject.startswith("local:"):
        return f"subject:{caller.subject}"
    client = connection.client
    return f"address:{client.host if client is not None else 'unknown'}"


def rate_limit_guard(limiter: RateLimiter) -> Guard:
    """A guard (after authentication) taking one token from the caller's bucket, or 429."""

    async def guard(connection: ASGIConnection[Any, Any, Any, Any], _h: BaseRouteHandler) -> None:
        wait = limiter.wait(_key(caller_of(connection), connection), now=anyio.current_time())
        if wait > 0.0:
            retry = str(max(1, math.ceil(wait)))
            raise HttpFailureError.of(FailureCode.RATE_LIMITED, {"Retry-After": retry})

    return guard
