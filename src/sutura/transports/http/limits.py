"""Request bounds: admission control and the request deadline.

* :class:`Admission` lets at most ``server.max_concurrent_queries`` questions run at once and
  answers the next one immediately with ``503 at_capacity`` and ``Retry-After``: there is no
  queue, so an overload is visible to callers at once rather than as growing latency.
* :class:`RequestDeadline` starts the request's clock (``server.request_timeout_seconds``). A
  body that has not arrived by then is ``408 timeout``; a question still running then is
  cancelled and answered with the typed refusal ``deadline_exceeded``.
* The body-size limit (``server.max_body_bytes``) is litestar's ``request_max_body_size``: a
  declared ``Content-Length`` over it is refused before anything is read, and a streamed body
  stops being read as soon as it passes it (``413 too_large``).
"""

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

from litestar.types import ASGIApp, Receive, ReceiveMessage, Scope, Send

from sutura.boundary.admission import Shedding, ShedError
from sutura.transports.http.errors import HttpFailureError
from sutura.transports.http.wire import RETRY_AFTER_SECONDS, FailureCode

_DEADLINE_KEY: Final = "sutura.deadline"


class Admission:
    """At most ``limit`` questions at once; never a queue.

    The counter is touched only from the event loop's thread, between awaits, so it needs no
    lock.

    >>> admission = Admission(1)
    >>> with admission.slot():
    ...     try:
    ...         with admission.slot():
    ...             pass
    ...     except HttpFailureError as failure:
    ...         print(failure.body.code.value, failure.headers)
    at_capacity {'Retry-After': '1'}
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.active = 0
        self.shed = 0

    def slot(self) -> "_Held":
        """Hold one slot for the block, or fail at once with ``at_capacity``."""
        if self.active >= self.limit:
            self.shed += 1
            raise HttpFailureError.of(
                FailureCode.AT_CAPACITY, {"Retry-After": str(RETRY_AFTER_SECONDS)}
            )
        return _Held(self)

    def shedding(self) -> "Shedding":
        """The same slots, for MCP: a call finding none free is :class:`ShedError` (``isError``)."""
        return _Shedding(self)

    def _held(self) -> "_Held":
        return _Held(self)


class _Held:
    """One slot of an :class:`Admission`, held for a block (a class, not a generator: every
    question takes one)."""

    __slots__ = ("_admission",)

    def __init__(self, admission: Admission) -> None:
        self._admission = admission

    def __enter__(self) -> None:
        self._admission.active += 1

    def __exit__(self, *_exc: object) -> None:
        self._admission.active -= 1


class _Shedding:
    """:class:`Admission`'s slots as MCP takes them."""

    def __init__(self, admission: Admission) -> None:
        self._admission = admission

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Hold one slot for the block, or raise :class:`ShedError` at once."""
        admission = self._admission
        if admission.active >= admission.limit:
            admission.shed += 1
            raise ShedError
        with admission._held():
            yield


class RequestDeadline:
    """ASGI middleware: starts the request's clock and bounds the wait for its body.

    The clock is the event loop's (anyio's own clock on asyncio), read directly, and the
    wait is bounded by ``asyncio.timeout_at``: nothing but the server's ``receive`` runs inside
    it, and an anyio cancel scope with its lookups cost each question more than the rest of
    this module."""

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Record the deadline on the scope and hand on a ``receive`` that honours it."""
        deadline = started_deadline(scope, self.seconds)

        async def bounded_receive() -> ReceiveMessage:
            return await received_by(receive, deadline)

        await self.app(scope, bounded_receive, send)


def started_deadline(scope: Scope, seconds: float) -> float:
    """The request's deadline, ``seconds`` from now on the event loop's clock, recorded on the
    scope (for :func:`seconds_left`)."""
    deadline = asyncio.get_running_loop().time() + seconds
    scope.setdefault("state", {})[_DEADLINE_KEY] = deadline
    return deadline


async def received_by(receive: Receive, deadline: float) -> ReceiveMessage:
    """The next message of the request, or ``408 timeout`` if it has not come by ``deadline``."""
    try:
        async with asyncio.timeout_at(deadline):
            return await receive()
    except TimeoutError:
        raise HttpFailureError.of(FailureCode.TIMEOUT) from None


def seconds_left(scope: Scope, default: float) -> float:
    """Seconds until the request's deadline (``default`` when no clock was started)."""
    deadline = scope.get("state", {}).get(_DEADLINE_KEY)
    if not isinstance(deadline, float):
        return default
    return max(deadline - asyncio.get_running_loop().time(), 0.0)
