"""A server's stderr that never holds the server up, and loses nothing without saying so.

A server writes its log, an audit line per call among it, to stderr. When stderr is a pipe
that nobody reads (a host that ignores a server's stderr), the 64 KiB the pipe holds fill after
a couple of hundred calls, and a plain ``write`` then blocks whoever logs: the event loop, and
with it every call. :class:`UnheldStderr` writes a line at once only when the pipe has room for
all of it (``select`` says writable and the line is at most ``PIPE_BUF`` bytes, which a pipe
takes whole); otherwise the line is kept, in order, and a writer thread of its own writes what
is kept as the reader makes room. At most :data:`KEPT_BYTES` are kept: past that, lines are
dropped and counted, and once the reader reads again the count is written where they would
have been (``sutura: 12 log lines were dropped: stderr was not read``). At exit, what is
kept gets :data:`EXIT_GRACE_SECONDS` to reach the reader.

Only a pipe or a socket is wrapped so; a terminal or a file keeps the plain stream.
"""

import atexit
import collections
import contextlib
import os
import select
import stat
import sys
import threading
import time
from typing import Final, TextIO

KEPT_BYTES: Final = 1024 * 1024
"""The most bytes of log lines kept while stderr is not read."""

EXIT_GRACE_SECONDS: Final = 2.0
"""How long, at exit, the kept lines may take to reach the reader."""

_ATOMIC: Final = getattr(select, "PIPE_BUF", 512)


def dropped_notice(count: int) -> str:
    """The line that stands for ``count`` dropped lines."""
    lines = "1 log line was" if count == 1 else f"{count} log lines were"
    return f"sutura: {lines} dropped: stderr was not read\n"


class UnheldStderr:
    """A text stream over ``fd`` (a pipe or a socket) whose ``write`` never blocks."""

    def __init__(self, fd: int, kept_bytes: int = KEPT_BYTES) -> None:
        self._fd = fd
        self._kept_bytes = kept_bytes
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._kept: collections.deque[bytes | int] = collections.deque()
        """Lines kept in order; a number stands for that many lines dropped there."""
        self._size = 0
        self._writing = False
        self._writer: threading.Thread | None = None

    def write(self, text: str) -> int:
        """Write ``text`` now if the reader has room for it whole, else keep it (or count it
        dropped, past the bound); never waits for the reader."""
        data = text.encode("utf-8", "backslashreplace")
        with self._lock:
            if not self._kept and not self._writing and self._room(data):
                with contextlib.suppress(OSError):  # nobody to tell: this is the log
                    os.write(self._fd, data)
                return len(text)
            if self._size + len(data) > self._kept_bytes:
                last = self._kept[-1] if self._kept else None
                if isinstance(last, int):
                    self._kept[-1] = last + 1
                else:
                    self._kept.append(1)
            else:
                self._kept.append(data)
                self._size += len(data)
            self._start_writer()
            self._changed.notify()
        return len(text)

    def flush(self) -> None:
        """Nothing to flush: a line is written or kept whole."""

    def fileno(self) -> int:
        """The descriptor written to."""
        return self._fd

    def drain(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for what is kept to be written; whether it was."""
        deadline = time.monotonic() + seconds
        with self._lock:
            while self._kept or self._writing:
                left = deadline - time.monotonic()
                if left <= 0 or self._writer is None:
                    return False
                self._changed.wait(left)
        return True

    def _room(self, data: bytes) -> bool:
        if len(data) > _ATOMIC:
            return False
        try:
            _, writable, _ = select.select([], [self._fd], [], 0)
        except (OSError, ValueError):
            return False
        return bool(writable)

    def _start_writer(self) -> None:
        if self._writer is None:
            self._writer = threading.Thread(target=self._write_kept, name="sutura-log", daemon=True)
            self._writer.start()
            atexit.register(self.drain, EXIT_GRACE_SECONDS)

    def _write_kept(self) -> None:
        """The writer thread: what is kept, in order, then the count of what was dropped."""
        while True:
            with self._lock:
                while not self._kept:
                    self._changed.notify_all()  # drained: drain() may return
                    self._changed.wait()
                kept = self._kept.popleft()
                if isinstance(kept, int):
                    data = dropped_notice(kept).encode("ascii")
                else:
                    data = kept
                    self._size -= len(data)
                self._writing = True
            try:
                _write_all(self._fd, data)
            except OSError:
                pass  # the reader is gone: nothing more can be said
            finally:
                with self._lock:
                    self._writing = False


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def unheld_stderr(stream: TextIO) -> TextIO | UnheldStderr:
    """``stream`` as the log should write it: an :class:`UnheldStderr` when it is this
    process's stderr on a pipe or a socket, else ``stream`` itself."""
    if stream is not sys.stderr:
        return stream
    try:
        fd = stream.fileno()
        mode = os.fstat(fd).st_mode
    except (OSError, ValueError):
        return stream
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return stream
    stream.flush()
    return UnheldStderr(fd)
