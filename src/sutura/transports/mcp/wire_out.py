"""The stdio wire's writing end, written from the event loop.

Handed nothing, the SDK's stdio transport writes each message through ``anyio.wrap_file``: a
write and a flush, each a round trip to a worker thread (a queue, a lock, and a wake-up each
way). Here the wire is a private duplicate of fd 1, put in non-blocking mode and written from
the loop itself: a message goes out in one ``os.write`` when the pipe has room, which it has
for every answer but the longest. When the pipe is full (a client reading slowly, or not at
all) the writer waits for room with ``anyio.wait_writable``: the loop serves everything else
meanwhile, a cancellation reaches the wait, and what was written stays whole and in order (the
SDK writes one message at a time, each to its end).

While the wire is claimed, fd 1 points at stderr, as the SDK arranges when it claims stdout
itself (it skips that for a stream it is handed): whatever else writes to fd 1 misses the wire.
At the end fd 1 is the wire again, blocking as it was.
"""

import errno
import fcntl
import logging
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

import anyio

log = logging.getLogger("sutura.mcp")

_STDOUT: Final = 1
_STDERR: Final = 2


class WireOut:
    """What the SDK's stdout writer writes to: ``write`` whole messages, ``flush`` nothing.

    Two writers share it (the SDK's writer, and the transport's own path for tool calls,
    :mod:`.fast_calls`): a message that does not go out in one write holds the wire until it
    is whole, and the other writer waits for it."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._busy = False
        self._free: anyio.Event | None = None

    async def write(self, text: str) -> None:
        """Write ``text`` (UTF-8) whole, waiting for room in the pipe as often as it fills."""
        data = memoryview(text.encode("utf-8"))
        while self._busy:
            if self._free is None:
                self._free = anyio.Event()
            await self._free.wait()
        try:
            written = os.write(self._fd, data)
        except BlockingIOError:
            written = 0
        if written == len(data):
            return
        data = data[written:]
        self._busy = True
        try:
            while data:
                try:
                    data = data[os.write(self._fd, data) :]
                except BlockingIOError:  # (os.write retries a signal's EINTR itself)
                    await anyio.wait_writable(self._fd)
        finally:
            self._busy = False
            free, self._free = self._free, None
            if free is not None:
                free.set()

    async def flush(self) -> None:
        """Nothing is held back: every write went to the descriptor."""


@contextmanager
def claimed_stdout() -> Iterator[WireOut | None]:
    """The wire as a :class:`WireOut` while the block runs, fd 1 diverted to stderr; None
    where fd 1 cannot be claimed so (not open, neither a pipe nor a socket, or the system
    refuses a step), and the SDK then claims it as it would."""
    claimed = _claim()
    if claimed is None:
        yield None
        return
    private, flags = claimed
    try:
        yield WireOut(private)
    finally:
        _release(private, flags)


def _claim() -> tuple[int, int] | None:
    try:
        kind = os.fstat(_STDOUT).st_mode
    except OSError:
        return None
    if not _pollable(kind):
        return None
    private = -1
    try:
        private = fcntl.fcntl(_STDOUT, fcntl.F_DUPFD_CLOEXEC, 3)
        flags = fcntl.fcntl(private, fcntl.F_GETFL)
        fcntl.fcntl(private, fcntl.F_SETFL, flags | os.O_NONBLOCK)
        os.dup2(_STDERR, _STDOUT)
    except OSError as error:
        log.debug("stdout: left to the SDK: %s", error)
        if private >= 0:
            _release(private, None)
        return None
    return private, flags


def _pollable(mode: int) -> bool:
    """A pipe or a socket: what a host spawns a server with. A terminal is left to the SDK
    (its non-blocking mode would be the shell's too), as is a file (epoll cannot watch one)."""
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _release(private: int, flags: int | None) -> None:
    """fd 1 is the wire again, with the flags it had; the private duplicate is closed."""
    try:
        if flags is not None:
            fcntl.fcntl(private, fcntl.F_SETFL, flags)
        os.dup2(private, _STDOUT)
    except OSError as error:
        if error.errno != errno.EBADF:
            log.debug("stdout: not restored: %s", error)
    finally:
        os.close(private)
