"""Garbage collection while a server is composed: paused, then what composing built is frozen.

What a server imports and builds before it serves (its framework, the compiler, the settings
and the catalog) is kept for the whole run, so a collection meanwhile only scans it to find it
alive: tens of milliseconds of the cold start. Frozen once composed, it is left out of every
later collection, so a full collection while serving no longer rescans it (a pause that would
land on some request's latency); a collection still finds the garbage of every call.
``sutura mcp`` composes in the block; ``sutura serve`` calls ``done()`` once it is bound.
"""

import gc
from collections.abc import Iterator
from contextlib import contextmanager


class Composing:
    """Collection paused from creation until :meth:`done`."""

    def __init__(self) -> None:
        self._collecting = gc.isenabled()
        self._open = True
        gc.disable()

    def done(self) -> None:
        """Freeze what was built out of later collections and collect again (once; later calls
        do nothing)."""
        if self._open:
            self._open = False
            gc.freeze()
            if self._collecting:
                gc.enable()


@contextmanager
def composing() -> Iterator[Composing]:
    """Collection paused in the block, until the block ends or ``done()`` is called (a server
    calls it once it is composed, and goes on serving inside the block)."""
    state = Composing()
    try:
        yield state
    finally:
        state.done()
