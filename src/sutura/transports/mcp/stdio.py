"""MCP over stdio, with every input line bounded.

The SDK's ``stdio_server`` reads stdin with an unbounded ``readline``: one line without a line
break could grow until memory runs out. So this module hands it stdin itself, read raw by a
daemon thread in lines of at most :data:`LINE_CAP` bytes. A longer line is dropped in bounded
chunks, never held whole, and answered with a JSON-RPC error (``id: null``, as the request's id was
never read). Lines are handed on as bytes, so a line that is not strict UTF-8 is refused by the
SDK's decoder rather than read with replacement characters; a line the SDK's decoder refuses is
answered with a JSON-RPC error before it reaches the SDK, which would answer nothing
(:mod:`.unreadable`).

stdout is written from the event loop, not through a worker thread per write
(:mod:`.wire_out`): while it serves, fd 1 points at stderr, so nothing but JSON-RPC ever
reaches the wire. A tool result's structured half is written as the bytes msgspec
encoded, spliced into the SDK's own JSON (:mod:`.encoded`).
"""

import asyncio
import fcntl
import logging
import os
import stat
import threading
from collections.abc import Callable
from enum import Enum
from typing import Any, Final, Protocol, cast

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from sutura.transports.mcp.encoded import SplicedWrites, keep_per_task
from sutura.transports.mcp.fast_calls import FastCalls, fast_calls_for
from sutura.transports.mcp.in_flight import IN_FLIGHT_CAP, Incoming, InFlight, Outgoing
from sutura.transports.mcp.unreadable import Refused, read_line
from sutura.transports.mcp.wire_out import claimed_stdout

LINE_CAP: Final = 1024 * 1024
"""The most bytes one JSON-RPC message may take on stdin, its line break not counted."""

_CHUNK: Final = 64 * 1024
OVER_CAP_MESSAGE: Final = "message too large: a line over 1 MiB was skipped unread"

log = logging.getLogger("sutura.mcp")


class Replies(Protocol):
    """Where a message to the client is written: the server's write stream."""

    async def send(self, item: SessionMessage, /) -> None:
        """Write one message."""
        ...


class Skipped(Enum):
    """A line the reader did not hand on."""

    OVER_CAP = "over the cap"


class BoundedLines:
    """Lines read through ``read`` (``os.read``-like), each at most ``cap`` bytes.

    At most ``cap`` plus one chunk is ever held: a longer line is read on and dropped a chunk
    at a time, up to its line break. Raw reads take no lock, so the daemon thread blocked in
    one never stalls interpreter shutdown (a buffered ``sys.stdin`` would).
    """

    def __init__(
        self, read: Callable[[int], bytes], cap: int = LINE_CAP, chunk: int = _CHUNK
    ) -> None:
        self._read = read
        self._cap = cap
        self._chunk = chunk
        self._pending = bytearray()
        self._searched = 0  # how much of the pending bytes holds no line break
        self._eof = False

    def read(self) -> bytes | Skipped:
        r"""The next line (with its ``\n``), ``b""`` at the end, or ``OVER_CAP``.

        >>> import io
        >>> lines = BoundedLines(io.BytesIO(b"ok\n" + b"x" * 9 + b"\nlast").read, cap=4, chunk=2)
        >>> [lines.read() for _ in range(4)]
        [b'ok\n', <Skipped.OVER_CAP: 'over the cap'>, b'last', b'']
        """
        while True:
            end = self._pending.find(b"\n", self._searched)
            if end != -1:
                return self._take(end + 1)
            self._searched = len(self._pending)
            if self._searched > self._cap:
                return self._skip()
            if self._eof:
                return self._take(len(self._pending))
            self._fill()

    def _fill(self) -> None:
        chunk = self._read(self._chunk)
        self._eof = not chunk
        self._pending += chunk

    def _take(self, size: int) -> bytes | Skipped:
        line = bytes(self._pending[:size])
        del self._pending[:size]
        self._searched = 0
        return line if len(line.removesuffix(b"\n")) <= self._cap else Skipped.OVER_CAP

    def _skip(self) -> Skipped:
        """Drop the rest of an over-long line, a chunk at a time, through its line break."""
        while True:
            end = self._pending.find(b"\n")
            if end != -1 or self._eof:
                del self._pending[: end + 1 if end != -1 else len(self._pending)]
                self._searched = 0
                return Skipped.OVER_CAP
            self._pending.clear()
            self._fill()


class StdinLines:
    """What ``stdio_server`` iterates for stdin: bounded lines, pumped by a daemon thread.

    A daemon thread, not a worker of the event loop, because it blocks in a read until the
    client writes or closes stdin, and must not keep the process alive after a shutdown.
    """

    def __init__(self, lines: BoundedLines) -> None:
        self._lines = lines
        self._send: MemoryObjectSendStream[bytes | Skipped]
        self._receive: MemoryObjectReceiveStream[bytes | Skipped]
        self._send, self._receive = anyio.create_memory_object_stream[bytes | Skipped](1)
        self._room = threading.Lock()
        """Held by the pump from handing a line over until the loop takes it."""
        self._replies: Replies | None = None
        self._replies_set = anyio.Event()
        self._fast: FastCalls | None = None

    def calls_on(self, fast: FastCalls | None) -> None:
        """Where a well-formed call of the server's tools is answered (:mod:`.fast_calls`);
        None: every line goes to the SDK."""
        self._fast = fast

    def reply_on(self, replies: Replies) -> None:
        """Where the refusal of a skipped line is written (the server's write stream)."""
        self._replies = replies
        self._replies_set.set()

    def __aiter__(self) -> "StdinLines":
        """Start the pump (inside the event loop, which it hands its lines to)."""
        loop = asyncio.get_running_loop()
        pump = threading.Thread(target=self._pump, args=(loop,), name="sutura-stdin", daemon=True)
        pump.start()
        return self

    async def __anext__(self) -> bytes:
        """The next line the SDK decodes; a skipped line, or one the SDK could not read, is
        answered here and not handed on (:mod:`.unreadable`), and a call the transport's own
        path takes is answered there (:mod:`.fast_calls`)."""
        async for item in self._receive:
            self._room.release()  # the pump may hand over the next line
            if isinstance(item, bytes):
                read = read_line(item)
                if isinstance(read, Refused):
                    log.warning("stdin: a line was not read: %s", read.refused.error.message)
                    await self._reply(read.refused)
                    continue
                if read is not None and self._fast is not None and self._fast.took(read):
                    continue
                return item
            log.warning("stdin: %s: %s", item.value, OVER_CAP_MESSAGE)
            error = types.ErrorData(code=types.INVALID_REQUEST, message=OVER_CAP_MESSAGE)
            await self._reply(types.JSONRPCError(jsonrpc="2.0", id=None, error=error))
        raise StopAsyncIteration

    def _pump(self, loop: asyncio.AbstractEventLoop) -> None:
        """Hand each line to the loop once it took the one before (one wake-up of the loop,
        no task, no future: the thread waits on a lock the loop releases)."""
        try:
            while line := self._lines.read():
                self._room.acquire()
                loop.call_soon_threadsafe(self._hand_over, line)
            loop.call_soon_threadsafe(self._send.close)
        except RuntimeError:
            return  # the loop has stopped; nobody reads any more

    def _hand_over(self, item: bytes | Skipped) -> None:
        try:
            self._send.send_nowait(item)  # room for it: the previous one was taken
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            return  # the server has stopped reading

    async def _reply(self, message: types.JSONRPCError) -> None:
        await self._replies_set.wait()
        if self._replies is not None:
            try:
                await self._replies.send(SessionMessage(message))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return


WRITE_GRACE_SECONDS: Final = 2.0
"""How long the answers already written by the server may take to reach stdout at the end."""


PIPE_BYTES: Final = 1024 * 1024
"""The capacity asked for stdout when it is a pipe (Linux's unprivileged maximum by default)."""


def _widen_pipe(fd: int) -> None:
    """Let a pipe on ``fd`` hold :data:`PIPE_BYTES`: a long answer then crosses in a few
    writes rather than one per 64 KiB (the default), each waiting for the reader to wake up
    (measured: the 8 MB response of 50,000 rows × 10 reached a reader with Python's default
    buffer in 33 ms instead of 119). Where ``fd`` is not a pipe, or the system says no, it
    stays as it is."""
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None)
    if set_size is None or not stat.S_ISFIFO(os.fstat(fd).st_mode):
        return
    try:
        fcntl.fcntl(fd, set_size, PIPE_BYTES)
    except OSError as error:
        log.debug("stdout: the pipe keeps its size: %s", error)


def _read_stdin(size: int) -> bytes:
    return os.read(0, size)


async def serve_stdio(
    server: Server[Any],
    stdin: Callable[[int], bytes] = _read_stdin,
    *,
    longest_call: float = 30.0,
    in_flight: int = IN_FLIGHT_CAP,
) -> None:
    """Serve ``server`` over stdio until the client closes stdin or the server stops.

    At most ``in_flight`` requests run at once (the rest are answered at once, "ask again
    shortly"); at the end of input every request read is answered before the server stops,
    waiting up to ``longest_call`` (the longest deadline) and a grace (see :mod:`.in_flight`).
    """
    lines = StdinLines(BoundedLines(stdin))
    flight = InFlight(in_flight)
    keep_per_task()
    _widen_pipe(1)
    with anyio.CancelScope() as scope, claimed_stdout() as wire:
        fast = fast_calls_for(server, wire, flight)
        lines.calls_on(fast)
        # The SDK types stdin and stdout as AsyncFile[str]; it only iterates the one (and
        # decodes bytes) and writes and flushes the other.
        async with (
            stdio_server(
                stdin=cast("anyio.AsyncFile[str]", lines),
                stdout=cast("anyio.AsyncFile[str] | None", wire),
            ) as (raw_in, raw_out),
            anyio.create_task_group() as calls,
        ):
            lines.reply_on(raw_out)
            if fast is not None:
                fast.serving(calls)
            incoming = Incoming(raw_in, raw_out, flight, longest_call)
            noted = None if fast is None else fast.answered_by_sdk
            outgoing = Outgoing(SplicedWrites(raw_out), flight, noted)
            await server.run(incoming, outgoing, server.create_initialization_options())
            # Every call taken off the SDK's path was answered before the end of input let
            # the server stop (or answered as stopped): nothing of them is still owed.
            calls.cancel_scope.cancel()
            # The server answers nothing more. Closing its write stream lets the writer write
            # and flush every answer still on its way (cancelling it at once could drop the
            # last one between its write and its flush); reading stdin, if it has not ended,
            # stops after a bounded grace.
            await raw_out.aclose()
            scope.deadline = anyio.current_time() + WRITE_GRACE_SECONDS
