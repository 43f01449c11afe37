"""The answering service, started once the handshake has been answered.

An agent host spawns ``sutura mcp``, sends ``initialize`` and ``tools/list``, and calls a tool
later, when its user asks. Neither handshake request needs a data source, so the server
answers them as soon as the catalog is pinned. The first ``tools/list`` or tool call begins
the start: the compiler and the SQL dialects are loaded in a worker thread (so the reply
already on its way is not held up), then the sources are opened and every anchor reproduced.

No tool answers before that start has succeeded: a call waits for it. A start that fails (a
source that does not open, an anchor that does not reproduce) stops the server, with its
reasons on stderr: the service does not start, exactly as when it is started before serving.
The service starts from the very settings and catalog the handshake described: nothing is
read twice.
"""

import datetime
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Final, Protocol

import anyio
import anyio.to_thread
from returns.pipeline import is_successful
from returns.result import Result

from sutura.boundary.answering import Service
from sutura.boundary.startup import Loaded
from sutura.core.catalog.model import Metric
from sutura.core.question.model import Question, Range

log = logging.getLogger("sutura.mcp")
_PROBE_RANGE: Final = Range(start=datetime.date(2000, 1, 1), end=datetime.date(2001, 1, 1))


class Starter(Protocol):
    """The composition's two ways to start (``sutura.root.Wiring`` is one)."""

    def load(self) -> Result[Loaded, list[str]]:
        """Settings and catalog, no data touched."""
        ...

    async def start(
        self, *, anchors: bool = True, context: Loaded | None = None
    ) -> Result[Service, list[str]]:
        """A running service started from ``context``: sources open, anchors reproduced."""
        ...


def _probe(metric: Metric) -> Question:
    """A question about ``metric`` that compiles like its anchor (or a year of it)."""
    anchor = metric.anchor
    span = _PROBE_RANGE if anchor is None else Range(start=anchor.start, end=anchor.end)
    return Question(metrics=[metric.name], grain=metric.coarsest_grain, range=span)


def warm(loaded: Loaded) -> None:
    """Compile one question per metric without touching data: it loads the compiler and the
    SQL dialect of every source, which would otherwise load on the event loop."""
    settings, pinned = loaded.loaded.settings, loaded.pinned
    planner = Service(settings=settings, pinned=pinned, sources={}, today=datetime.date.today)
    for metric in pinned.catalog.metrics:
        planner.plan(_probe(metric))


class Starting:
    """One run's service: started in the background, awaited by every tool call."""

    def __init__(self, starter: Starter, loaded: Loaded, errors: list[str]) -> None:
        self._starter = starter
        self._loaded = loaded
        self._errors = errors
        self._begun = anyio.Event()
        self._ready = anyio.Event()
        self._service: Service | None = None

    def begin(self) -> None:
        """Let the start begin (idempotent)."""
        self._begun.set()

    async def run(self, stop: anyio.CancelScope) -> None:
        """Once begun, start the service; on failure record why and stop the server.

        The start is shielded: cancelled halfway, it could leave a source open. It is bounded
        all the same, by the sources' own deadlines.
        """
        await self._begun.wait()
        with anyio.CancelScope(shield=True):
            try:
                await anyio.to_thread.run_sync(warm, self._loaded)
            except Exception:  # only a head start: the start itself reports real problems
                log.debug("warm-up failed", exc_info=True)
            started = await self._starter.start(anchors=True, context=self._loaded)
        if not is_successful(started):
            self._errors.extend(started.failure())
            stop.cancel()
            return
        self._service = started.unwrap()
        self._ready.set()

    async def service(self) -> Service:
        """The started service, once the start has succeeded (beginning it if need be)."""
        self.begin()
        await self._ready.wait()
        if self._service is None:  # set before the event, by run(); never None here
            raise RuntimeError("the service is ready but missing")
        return self._service

    async def close(self) -> None:
        """Close the service's sources, if it started."""
        if self._service is not None:
            await self._service.close()


Lifespan = Callable[[Any], AbstractAsyncContextManager[Starting]]


def lifespan_of(starter: Starter, loaded: Loaded, errors: list[str]) -> Lifespan:
    """The server's lifespan: each run starts its own service, and closes it at the end."""

    @asynccontextmanager
    async def lifespan(_server: Any) -> AsyncIterator[Starting]:
        starting = Starting(starter, loaded, errors)
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(starting.run, group.cancel_scope)
                try:
                    yield starting
                finally:
                    group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):  # after the start has ended, either way
                await starting.close()

    return lifespan
