"""The answering service, started once the handshake has been answered.

An agent host spawns ``sutura mcp``, sends ``initialize`` and ``tools/list``, and calls a tool
later, when its user asks. Neither handshake request needs a data source, nor the compiler, so
the server imports neither before it answers them: they are answered as soon as the catalog is
pinned. The first ``tools/list`` or tool call begins the start: in a worker thread (so the reply
already on its way is not held up), the service's modules are imported, the compiler with them,
and each source's SQL dialect is loaded by compiling one question per source, with the garbage
collector paused and what was built frozen out of later collections (as ``sutura mcp``
composes, :mod:`sutura.boundary.composing`), while another worker thread opens each DuckDB
database file ahead and locks it down (:mod:`sutura.boundary.sources.duckdb_lockdown`: most of
that runs outside the interpreter lock, so it overlaps the warm-up); then the service is opened
(``open_service``: sources, models checked, anchors) in a task that holds it for the whole run,
and closes it at the end. Once its first call has been answered (or a ``describe_catalog``
asks first), each source is asked where each metric's data is, beside the calls: the extents
shape catalog pages, never an answer, so no answer waits for them, nor shares the start's
first moments with them; ``describe_catalog`` waits for them as every call waits for the start
(its own deadline is not spent on them: a source whose extent statement runs to its bound costs
its metrics their data line, never every metric's).

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
from typing import TYPE_CHECKING, Any, Final, assert_never

import anyio
import anyio.to_thread
from returns.pipeline import is_successful

from sutura.boundary.composing import composing
from sutura.boundary.loading import Loaded, utc_today
from sutura.core.definitions.model import Metric
from sutura.core.nouns.question import Question, Range
from sutura.core.tool.capability import Capability

if TYPE_CHECKING:  # imported by the start itself, once the handshake is answered
    from sutura.boundary.service import Service

log = logging.getLogger("sutura.mcp")
_PROBE_RANGE: Final = Range(start=datetime.date(2000, 1, 1), end=datetime.date(2001, 1, 1))


def _probe(metric: Metric) -> Question:
    """A question about ``metric`` that compiles like its anchor (or a year of it)."""
    anchor = metric.anchor
    span = _PROBE_RANGE if anchor is None else Range(start=anchor.start, end=anchor.end)
    return Question(metrics=[metric.name], grain=metric.coarsest_grain, range=span)


def warm(loaded: Loaded) -> None:
    """Import the service's modules and compile one question per source without touching
    data: it loads the compiler and the source's SQL dialect, which would otherwise load on the
    event loop. The first metric of each source that a question without filters can ask is
    compiled; the others are not (a catalog of 2,000 metrics would spend seconds compiling
    questions nobody asked). Collection is paused meanwhile, and what was built is frozen out
    of later collections: it is kept for the whole run."""
    with composing():
        import sutura.boundary.startup  # noqa: F401  (what opening the service needs)
        from sutura.boundary.planning import Planner

        today = utc_today()
        planner = Planner(loaded.loaded.settings, lambda: today)  # the planner a service uses
        catalog = loaded.pinned.catalog
        warmed: set[str] = set()
        for metric in catalog.metrics:
            model = catalog.model(metric.model)
            if model is None or model.source in warmed:
                continue
            planned = planner.plan(_probe(metric), loaded.pinned, None)  # the whole catalog
            if is_successful(planned):
                warmed.add(model.source)


async def _extents_of(service: "Service", asked: anyio.Event) -> None:
    """Ask the sources where each metric's data is, then set ``asked`` (however it ends); a
    failure is logged, never raised (a statement that fails already costs its metrics only
    their extent, each bounded by its own deadline)."""
    try:
        await service.refresh_extents()
    except Exception:
        log.exception("where each metric's data is: not asked")
    finally:
        asked.set()


def _shows_extents(capability: Capability) -> bool:
    """Whether a call of ``capability`` shows where each metric's data is (a catalog page)."""
    match capability:
        case Capability.DESCRIBE_CATALOG:
            return True
        case (
            Capability.ASK_METRIC
            | Capability.COMPILE_QUESTION
            | Capability.RUN_SQL
            | Capability.LIST_VALUES
        ):
            return False
        case _:
            assert_never(capability)


async def _warmed(loaded: Loaded) -> None:
    """:func:`warm` in a worker thread; only a head start, so a failure is not the start's (the
    start itself reports real problems)."""
    try:
        await anyio.to_thread.run_sync(warm, loaded)
    except Exception:
        log.debug("warm-up failed", exc_info=True)


async def _opened_ahead(loaded: Loaded, into: list[Any]) -> None:
    """DuckDB and its database files opened in a worker thread beside the warm-up (most of
    opening a file runs outside the interpreter lock), each held in ``into``."""

    def opened() -> list[Any]:
        from sutura.boundary.sources.duckdb_lockdown import opened_ahead

        return list(opened_ahead(loaded.loaded.settings.sources, loaded.source_context()))

    try:
        into.extend(await anyio.to_thread.run_sync(opened))
    except Exception:  # only a head start, as the warm-up is
        log.debug("opening ahead failed", exc_info=True)


def _close(connections: list[Any]) -> None:
    """Close the connections opened ahead (once: the list is emptied)."""
    while connections:
        connections.pop().close()


class Starting:
    """One run's service: opened in the background, held until the run ends."""

    def __init__(self, loaded: Loaded, errors: list[str]) -> None:
        self._loaded = loaded
        self._errors = errors
        self._begun = anyio.Event()
        self._ready = anyio.Event()
        self._extents = anyio.Event()
        self._wanted = anyio.Event()
        """Set once the extents may be asked: a call answered, or a catalog page asked."""
        self._done = anyio.Event()
        self._service: Service | None = None

    def begin(self) -> None:
        """Let the start begin (idempotent)."""
        self._begun.set()

    def served(self) -> None:
        """A call has been answered: where each metric's data is may be asked (idempotent)."""
        self._wanted.set()

    def end(self) -> None:
        """Let the service close (idempotent)."""
        self._done.set()

    async def hold(self, stop: anyio.CancelScope) -> None:
        """Once begun, open the service and hold it until :meth:`end`; on failure record why
        and stop the server. Opening and closing are shielded: cancelled halfway, they could
        leave a source open. They are bounded all the same, by the sources' own deadlines."""
        await self._begun.wait()
        ahead: list[Any] = []  # the database files opened ahead, held until the service opens
        try:
            with anyio.CancelScope(shield=True):
                async with anyio.create_task_group() as group:
                    group.start_soon(_warmed, self._loaded)
                    group.start_soon(_opened_ahead, self._loaded, ahead)
            await self._held(stop, ahead)
        finally:
            _close(ahead)

    async def _held(self, stop: anyio.CancelScope, ahead: list[Any]) -> None:
        from sutura.boundary.startup import open_service  # imported by the warm-up already

        async with open_service(self._loaded, anchors=True) as started:
            _close(ahead)  # the service's own connections hold what these opened
            if not is_successful(started):
                self._errors.extend(started.failure())
                stop.cancel()
                return
            service = self._service = started.unwrap()
            # Where each metric's data is shapes catalog pages, never an answer: it is asked
            # beside the calls once the first is answered, and ``describe_catalog`` waits for
            # it (:meth:`service`).
            async with anyio.create_task_group() as beside:
                beside.start_soon(self._extents_when_wanted, service)
                self._ready.set()
                await self._done.wait()
                beside.cancel_scope.cancel()

    async def _extents_when_wanted(self, service: "Service") -> None:
        await self._wanted.wait()
        await _extents_of(service, self._extents)

    async def service(self, capability: Capability) -> "Service":
        """The started service, once the start has succeeded (beginning it if need be), and,
        for a call that shows where each metric's data is, once the start has asked that."""
        self.begin()
        # anyio's wait on an event already set is a checkpoint, one trip through the event
        # loop: a warm call, whose service is ready, is handed it at once.
        if not self._ready.is_set():
            await self._ready.wait()
        if _shows_extents(capability):
            self._wanted.set()
            if not self._extents.is_set():
                await self._extents.wait()
        if self._service is None:  # set before the event, by hold(); never None here
            raise RuntimeError("the service is ready but missing")
        return self._service


Lifespan = Callable[[Any], AbstractAsyncContextManager[Starting]]


def lifespan_of(loaded: Loaded, errors: list[str]) -> Lifespan:
    """The server's lifespan: each run opens its own service, and closes it at the end."""

    @asynccontextmanager
    async def lifespan(_server: Any) -> AsyncIterator[Starting]:
        starting = Starting(loaded, errors)
        async with anyio.create_task_group() as group:
            group.start_soon(starting.hold, group.cancel_scope)
            try:
                yield starting
            finally:
                # Closing is shielded inside open_service; cancelling only stops a start
                # still under way, or the wait of a held service.
                starting.end()
                group.cancel_scope.cancel()

    return lifespan
