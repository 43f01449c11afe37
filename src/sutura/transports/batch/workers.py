"""Rendering on worker processes: chunks of records out, rendered bytes back, in input order.

A record's rendering is a pure function of its bytes (:func:`~.convert.convert`), so records can
be rendered anywhere and put back in order. The reading process cuts the record stream into
chunks of about :data:`CHUNK_BYTES`, hands them to a pool of worker processes and takes the
results back in the order the chunks were read; at most ``2 * jobs`` chunks are in flight, so
memory stays bounded by the window, not by the input. Workers are started fresh (``spawn``:
nothing of the reading process is copied into them), ignore Ctrl-C (the reading process
answers it) and exit when the reading process is gone.

>>> from sutura.transports.batch.problems import RecordProblem
>>> done = render_chunk([RawRecord(1, b"{}"), RecordError(number=2,
...     problem=RecordProblem.TOO_LONG, detail="a line longer than 9 bytes")], Target.TEXT)
>>> done.rendered, [error.number for error in done.errors]
(0, [1, 2])
"""

import itertools
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Final, NamedTuple

from sutura.transports.batch.convert import Target, convert
from sutura.transports.batch.problems import RecordError
from sutura.transports.batch.records import Counted, RawRecord

if TYPE_CHECKING:
    from concurrent.futures import Future
    from multiprocessing.context import BaseContext

CHUNK_BYTES: Final = 1 << 20
_PARENT_POLL_SECONDS: Final = 0.5

Item = RawRecord | RecordError
"""A record as read: its bytes, or the reader's own error for it (``too_long``)."""


class WorkerLostError(Exception):
    """A worker process stopped before it returned its chunk (killed, out of memory)."""


class Chunk(NamedTuple):
    """Records read together, and the input's byte count once they were read."""

    items: list[Item]
    consumed: int


class Rendered(NamedTuple):
    """One chunk's renderings joined in order, its invalid records in order, and how many
    records rendered."""

    data: bytes
    errors: list[RecordError]
    rendered: int


def render_chunk(items: list[Item], target: Target) -> Rendered:
    """Every item of a chunk rendered for ``target``, or kept as its error, in order."""
    parts: list[bytes] = []
    errors: list[RecordError] = []
    for item in items:
        result = item if isinstance(item, RecordError) else convert(item, target)
        if isinstance(result, RecordError):
            errors.append(result)
        else:
            parts.append(result)
    return Rendered(b"".join(parts), errors, len(parts))


def chunks(items: Iterable[Item], counted: Counted, size: int = CHUNK_BYTES) -> Iterator[Chunk]:
    """``items`` cut into chunks of about ``size`` bytes of record data."""
    pending: list[Item] = []
    held = 0
    for item in items:
        pending.append(item)
        held += len(item.data) if isinstance(item, RawRecord) else 1
        if held >= size:
            yield Chunk(pending, counted.consumed)
            pending, held = [], 0
    if pending:
        yield Chunk(pending, counted.consumed)


def rendered_in_order(
    chunked: Iterable[Chunk], target: Target, jobs: int
) -> Iterator[tuple[Rendered, int]]:
    """Each chunk's :class:`Rendered` and its ``consumed`` count, in input order, from ``jobs``
    worker processes (started only when there is a first chunk). Raises
    :class:`WorkerLostError` when a worker dies."""
    remaining = iter(chunked)
    first = next(remaining, None)
    if first is None:
        return
    # imported when workers start: a serial run never pays for them
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    pool = ProcessPoolExecutor(
        jobs, mp_context=_fresh_processes(), initializer=_worker_started, initargs=(os.getpid(),)
    )
    window: deque[tuple[Future[Rendered], int]] = deque()
    try:
        for chunk in itertools.chain([first], remaining):
            window.append((pool.submit(render_chunk, chunk.items, target), chunk.consumed))
            if len(window) > 2 * jobs:
                future, consumed = window.popleft()
                yield future.result(), consumed
        while window:
            future, consumed = window.popleft()
            yield future.result(), consumed
    except BrokenProcessPool as lost:
        raise WorkerLostError("a rendering worker process stopped before it finished") from lost
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def warm_up() -> None:
    """Start the fork server now (POSIX), so its imports overlap the reading process's work;
    a later :func:`rendered_in_order` then forks workers from it at once."""
    if _fresh_processes().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


def _fresh_processes() -> "BaseContext":
    """Workers forked from a fresh server process that has imported this module (POSIX), or
    spawned fresh: never a copy of the reading process, and no re-import of its ``__main__``."""
    import multiprocessing

    if "forkserver" in multiprocessing.get_all_start_methods():
        server: BaseContext = multiprocessing.get_context("forkserver")
        server.set_forkserver_preload([__name__])
        return server
    spawned: BaseContext = multiprocessing.get_context("spawn")
    return spawned


def _worker_started(parent: int) -> None:
    """In each worker: leave Ctrl-C to the reading process, and exit when it is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _exit_with(parent: int) -> None:
    """Exit once the reading process is gone (a worker's own parent may be the fork server)."""
    while _alive(parent):
        time.sleep(_PARENT_POLL_SECONDS)
    os._exit(1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # no signal sent: only whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, under another user
    return True


def available_cpus() -> int:
    """The processors this process may run on (its affinity where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)
