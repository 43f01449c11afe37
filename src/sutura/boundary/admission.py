"""Admission of a call that runs a query, as both servers share it: a slot, or shed at once.

``sutura serve`` holds one count of queries in flight for ``/v1`` and ``/mcp`` alike
(``server.max_concurrent_queries``); each transport refuses a call finding no slot free in its
own words (HTTP ``503 at_capacity``, MCP a result with ``isError``), never queues it. This
module is what the MCP tool table takes, so it needs nothing of the HTTP app.
"""

from contextlib import AbstractContextManager
from typing import Final, Protocol


class Shedding(Protocol):
    """Admission of a tool call that runs a query: a slot for the block, or ``ShedError``."""

    def slot(self) -> AbstractContextManager[None]:
        """Hold one slot for the block; raises :class:`ShedError` when none is free."""
        ...


class ShedError(Exception):
    """No slot was free: the call is refused at once, "ask again shortly"."""


SHED_SENTENCE: Final = "The server is at capacity: ask again shortly."
"""What a shed MCP call is answered (``isError``)."""
