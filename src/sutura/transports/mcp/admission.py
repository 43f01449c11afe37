"""Admission on ``sutura mcp``: at most ``server.max_concurrent_queries`` queries at once.

A host may send calls concurrently over one stdio pipe; a call that finds every slot taken is
shed at once — a tool result with ``isError`` saying to ask again shortly — rather than queued
behind the others.

>>> slots = Slots(1)
>>> with slots.slot():
...     try:
...         with slots.slot():
...             pass
...     except ShedError:
...         print("shed", slots.shed)
shed 1
"""

from collections.abc import Iterator
from contextlib import contextmanager

from sutura.transports.mcp.server import ShedError


class Slots:
    """``limit`` slots, counted from the event loop's thread only (so no lock)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.active = 0
        self.shed = 0

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Hold a slot for the block, or raise :class:`ShedError` at once."""
        if self.active >= self.limit:
            self.shed += 1
            raise ShedError
        self.active += 1
        try:
            yield
        finally:
            self.active -= 1
