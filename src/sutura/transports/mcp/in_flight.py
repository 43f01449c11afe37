"""A bound on requests in flight over stdio, and every one answered before exit.

The SDK starts a task for every request it reads, however many are unanswered. A client that
writes and never reads would grow the server without limit: every answer waits on a full
stdout, and the next request is read all the same. :class:`InFlight` sits between the stdio
transport and the server:

* at most :data:`IN_FLIGHT_CAP` requests are handed to the server at once. The next is answered
  at once instead: a ``tools/call`` with a tool result whose ``isError`` is true and whose text
  says to ask again shortly (:data:`SHED_MESSAGE`); any other request with that sentence as a
  JSON-RPC error. Writing that answer waits on stdout like any other, so a client that does not
  read stops being read: memory stays bounded.
* a request the client cancels (``notifications/cancelled``) is never answered, so its place
  is freed when the SDK settles it unanswered (the ``on_request_unanswered`` hook it runs for
  a transport); a client that cancels many calls is not shed for calls no longer running,
  and the end of input owes it nothing.
* at the end of input, the server is not told until every request it was handed has been
  answered (each is bounded by its deadline); after :data:`DRAIN_SECONDS` more, whatever is
  still unanswered is answered with a JSON-RPC error saying the server stopped before it
  finished (:data:`STOPPED_MESSAGE`). No request is left without an answer.
"""

from collections.abc import Awaitable, Callable, Hashable
from dataclasses import replace
from types import TracebackType
from typing import Any, Final, Protocol, Self

import anyio
import mcp_types as types
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import ServerMessageMetadata, SessionMessage

IN_FLIGHT_CAP: Final = 16
"""Requests handed to the server and not yet answered, at most."""

DRAIN_SECONDS: Final = 5.0
"""How long past the longest deadline the end of input waits for answers still owed."""

SHED_MESSAGE: Final = (
    "sutura is answering as many requests as it allows at once; nothing was run. "
    "Ask again shortly, after reading the answers already sent."
)
STOPPED_MESSAGE: Final = "the server stopped (its input ended) before it finished this request"
_BUSY: Final = -32000


class InFlight:
    """The requests handed to the server and not yet answered (a multiset of ids)."""

    def __init__(self, cap: int = IN_FLIGHT_CAP) -> None:
        self.cap = cap
        self._owed: dict[Hashable, int] = {}
        self._changed: anyio.Event | None = None
        """Set at the next answer; made only while :meth:`drained` waits for one."""

    def __len__(self) -> int:
        return sum(self._owed.values())

    def take(self, request_id: Hashable) -> bool:
        """Count a request in, unless the cap is reached."""
        if len(self) >= self.cap:
            return False
        self._owed[request_id] = self._owed.get(request_id, 0) + 1
        return True

    def owes(self, request_id: Hashable, correlated: Callable[[Any], Hashable]) -> bool:
        """Whether a request whose id correlates with ``request_id`` is owed an answer."""
        return any(correlated(owed) == request_id for owed in self._owed)

    def answered(self, request_id: Hashable) -> None:
        """A response for ``request_id`` was written."""
        count = self._owed.get(request_id, 0)
        if count <= 1:
            self._owed.pop(request_id, None)
        else:
            self._owed[request_id] = count - 1
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    def settled(self, request_id: Hashable) -> Callable[[], Awaitable[None]]:
        """What the SDK runs when ``request_id`` settles with no answer (the client cancelled
        it): its place is freed, as an answer frees it."""

        async def unanswered() -> None:
            self.answered(request_id)

        return unanswered

    def owed(self) -> list[Hashable]:
        """Every id still owed an answer."""
        return [rid for rid, count in self._owed.items() for _ in range(count)]

    async def drained(self, seconds: float) -> bool:
        """Wait until nothing is owed (True), or ``seconds`` pass (False)."""
        with anyio.move_on_after(seconds):
            while len(self):
                if self._changed is None:
                    self._changed = anyio.Event()
                await self._changed.wait()
            return True
        return False


class _Closable(Protocol):
    async def aclose(self) -> None: ...


class _Wrapped:
    """A stream this module wraps: closing it closes the stream underneath."""

    def __init__(self, underneath: _Closable) -> None:
        self._underneath = underneath

    async def aclose(self) -> None:
        """Close the stream underneath."""
        await self._underneath.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None


class Outgoing(_Wrapped):
    """The server's write stream, noting each answer it writes."""

    def __init__(
        self,
        inner: WriteStream[SessionMessage],
        flight: InFlight,
        noted: Callable[[types.JSONRPCMessage], None] | None = None,
    ) -> None:
        super().__init__(inner)
        self._inner = inner
        self._flight = flight
        self._noted = noted

    async def send(self, item: SessionMessage, /) -> None:
        """Write ``item``; an answer to a request in flight frees its place (and ``noted``,
        if given, is told of every message written)."""
        await self._inner.send(item)
        message = item.message
        if self._noted is not None:
            self._noted(message)
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            request_id = message.id
            if request_id is not None:
                self._flight.answered(request_id)


class Incoming(_Wrapped):
    """The server's read stream, bounded by :class:`InFlight` and drained at its end."""

    def __init__(
        self,
        inner: ReadStream[SessionMessage | Exception],
        replies: WriteStream[SessionMessage],
        flight: InFlight,
        longest_call: float,
    ) -> None:
        super().__init__(inner)
        self._inner = inner
        self._replies = replies
        self._flight = flight
        self._longest = longest_call
        self.last_context = None

    async def receive(self) -> SessionMessage | Exception:
        """The next message for the server; a request past the cap is answered here."""
        while True:
            try:
                item = await self._inner.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                await self._drain()
                raise anyio.EndOfStream from None
            self.last_context = getattr(self._inner, "last_context", None)
            if not isinstance(item, SessionMessage):
                return item
            message = item.message
            if not isinstance(message, types.JSONRPCRequest):
                return item
            if self._flight.take(message.id):
                return _settling(item, self._flight.settled(message.id))
            await self._replies.send(SessionMessage(_shed(message)))

    async def _drain(self) -> None:
        if await self._flight.drained(self._longest + DRAIN_SECONDS):
            return
        for request_id in self._flight.owed():
            error = types.ErrorData(code=_BUSY, message=STOPPED_MESSAGE)
            stopped = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)  # type: ignore[arg-type]
            with anyio.move_on_after(DRAIN_SECONDS):
                await self._replies.send(SessionMessage(stopped))

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


def _settling(item: SessionMessage, settled: Callable[[], Awaitable[None]]) -> SessionMessage:
    """``item`` with ``settled`` as the hook the SDK runs when it settles unanswered."""
    metadata = item.metadata
    if metadata is None:
        hooked = ServerMessageMetadata(on_request_unanswered=settled)
    elif isinstance(metadata, ServerMessageMetadata) and metadata.on_request_unanswered is None:
        hooked = replace(metadata, on_request_unanswered=settled)
    else:
        return item
    return SessionMessage(item.message, metadata=hooked)


def _shed(request: types.JSONRPCRequest) -> types.JSONRPCResponse | types.JSONRPCError:
    if request.method == "tools/call":
        result = types.CallToolResult(
            content=[types.TextContent(type="text", text=SHED_MESSAGE)], is_error=True
        )
        dumped = result.model_dump(by_alias=True, exclude_none=True)
        return types.JSONRPCResponse(jsonrpc="2.0", id=request.id, result=dumped)
    error = types.ErrorData(code=_BUSY, message=SHED_MESSAGE)
    return types.JSONRPCError(jsonrpc="2.0", id=request.id, error=error)
