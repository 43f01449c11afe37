"""Rendering on worker processes: chunks of records out, rendered bytes back, in input order.

A record's rendering is a pure function of its bytes (:func:`~.convert.convert`), so records can
be rendered anywhere and put back in order. The reading process cuts the record stream into
chunks of about :data:`CHUNK_BYTES`, deals them in turn to ``jobs`` worker processes
(:mod:`.pool`) and takes the results back in the order the chunks were read; at most
``2 * jobs + 1`` chunks are in flight, so memory stays bounded by the window, not by the input.
Workers are started fresh (nothing of the reading process is copied into them), ignore Ctrl-C
(the reading process answers it) and exit when the reading process is gone.

>>> from sutura.transports.batch.problems import RecordProblem
>>> done = render_chunk([RawRecord(1, b"{}"), RecordError(number=2,
...     problem=RecordProblem.TOO_LONG, detail="a line longer than 9 bytes")], Target.TEXT)
>>> done.rendered, [error.number for error in done.errors]
(0, [1, 2])
"""

import itertools
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Final, NamedTuple

from sutura.transports.batch.convert import Target, convert
from sutura.transports.batch.problems import RecordError
from sutura.transports.batch.records import Counted, RawRecord

CHUNK_BYTES: Final = 1 << 20

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
    worker processes (started only when there is a first chunk), each given every ``jobs``-th
    chunk. Raises :class:`WorkerLostError` when a worker dies; the others are stopped then,
    and when the caller stops early."""
    remaining = iter(chunked)
    first = next(remaining, None)
    if first is None:
        return
    from sutura.transports.batch import pool  # a serial run never loads it

    workers = pool.start(jobs, target)
    window: deque[tuple[pool.Worker, int]] = deque()
    finished = False
    try:
        for worker, chunk in zip(itertools.cycle(workers), itertools.chain([first], remaining)):
            worker.submit(chunk.items)
            window.append((worker, chunk.consumed))
            if len(window) > 2 * jobs:
                oldest, consumed = window.popleft()
                yield oldest.result(), consumed
        while window:
            oldest, consumed = window.popleft()
            yield oldest.result(), consumed
        finished = True
    finally:
        for worker in workers:
            worker.stop(at_once=not finished)


def warm_up() -> None:
    """Start what forks the worker processes now, so its start overlaps the reading process's
    work (:func:`.pool.warm_up`)."""
    from sutura.transports.batch import pool

    pool.warm_up()
