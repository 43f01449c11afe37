"""Where each metric's data is, asked of its source and asked again as often as answers age.

Every metric's extent (the first and last day of the rows it counts,
:mod:`sutura.core.sql.extent`) is asked of its source through the one source skeleton —
deadline, row cap, cell text — when a server starts and, otherwise, at the first
``describe_catalog``. It is asked again
once it is older than the source's ``cache.max_age_seconds``, the age an answer from the cache
may have; a source whose data can change and that sets none is asked again after
:data:`DEFAULT_MAX_AGE_SECONDS`; a DuckDB source never (its data cannot change while the
service runs). A statement that fails leaves its metrics without an extent, the cause in the
log: a catalog is never refused for it. A source whose asking is cut short (the deadline of
the ``describe_catalog`` that asked it) is asked again by the next one.
"""

import datetime
import logging
import math
from collections.abc import Callable, Mapping
from typing import Final, assert_never

import anyio
from returns.pipeline import is_successful
from returns.result import Failure

from sutura.boundary.planning import catalog_zone
from sutura.boundary.sources.skeleton import Source, run_certified
from sutura.core.definitions.model import Metric
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.extent import Extent
from sutura.core.nouns.refusal import RefusalCode, refusal
from sutura.core.settings import (
    DuckDBSourceSettings,
    PostgresSourceSettings,
    Settings,
    SourceSettings,
    SparkSourceSettings,
)
from sutura.core.sql.compiled import CompiledQuery
from sutura.core.sql.extent import (
    batched_extent_statement,
    extent_statement,
    extents,
    metric_source,
)

log = logging.getLogger("sutura.service")

DEFAULT_MAX_AGE_SECONDS: Final = 300.0
"""How old an extent of a source whose data can change may be, when it sets no cache age."""
_DEADLINE_SECONDS: Final = 10.0
BATCH: Final = 64
"""The most extents one statement finds."""


def max_age(settings: SourceSettings) -> float:
    """How old an extent read from a source may be before it is asked again."""
    if settings.cache.max_age_seconds is not None:
        return settings.cache.max_age_seconds
    match settings:
        case DuckDBSourceSettings():
            return math.inf
        case PostgresSourceSettings() | SparkSourceSettings():
            return DEFAULT_MAX_AGE_SECONDS
        case _:
            assert_never(settings)


class DataExtents:
    """The extents known, by metric name, and when each source was last asked."""

    def __init__(
        self,
        pinned: PinnedDefinitions,
        settings: Settings,
        sources: Mapping[str, Source],
        now: Callable[[], datetime.datetime],
        instant: Callable[[datetime.datetime], str],
    ) -> None:
        self._pinned = pinned
        self._settings = settings
        self._zone = catalog_zone(settings)
        self._sources = sources
        self._now = now
        self._instant = instant
        self._asked: dict[str, datetime.datetime] = {}
        self._lock = anyio.Lock()
        self.known: dict[str, Extent] = {}
        self.generation = 0
        """How many times the sources were asked: the views made with ``known`` say which."""

    def _stale(self) -> list[str]:
        """The sources never asked, or asked longer ago (on the service's clock, the one an
        answer's age is read from) than their answers may be old."""
        now = self._now()
        return [
            alias
            for alias in sorted(self._sources)
            if alias not in self._asked
            or (now - self._asked[alias]).total_seconds() >= max_age(self._settings.sources[alias])
        ]

    async def refresh(self) -> None:
        """Ask every source whose extents are missing or too old. While another caller is
        asking, wait for its answers (a source is marked asked as its asking begins)."""
        if not self._stale() and not self._lock.locked():
            return
        async with self._lock:
            stale = self._stale()  # another caller may have asked while this one waited
            for alias in stale:
                await self._ask(alias)
            if stale:
                self.generation += 1

    async def _ask(self, alias: str) -> None:
        """Every extent of the source ``alias``: up to :data:`BATCH` in one statement; a batch
        that fails, or gives a row for no position of it or two for one, is asked again one
        extent at a time, so each extent is found (or not, with its cause in the log) exactly as
        its own statement finds it.

        One batch's statement runs while the next one's is built (on DuckDB, building a batch
        of 64 took half to two-thirds as long as running it); the extents are recorded, and
        those asked again asked, in the catalog's order once every batch has run."""
        source = self._sources[alias]
        deadline = min(self._settings.limits.deadline_seconds, _DEADLINE_SECONDS)
        asked = self._asked[alias] = self._now()
        catalog = self._pinned.catalog
        mine = [
            (names, metric)
            for names, metric in extents(catalog)
            if metric_source(catalog, metric) == alias
        ]
        batches = [mine[start : start + BATCH] for start in range(0, len(mine), BATCH)]
        try:
            await self._asked_in(source, batches, asked, deadline)
        except BaseException:  # cut short (a caller's deadline): asked again by the next caller
            del self._asked[alias]
            raise

    async def _asked_in(
        self,
        source: Source,
        batches: list[list[tuple[tuple[str, ...], Metric]]],
        asked: datetime.datetime,
        deadline: float,
    ) -> None:
        """Each batch asked, then each extent recorded (those of a batch that failed asked
        again one at a time), in the catalog's order."""
        catalog = self._pinned.catalog
        found = await self._batches(source, [[m for _, m in batch] for batch in batches], deadline)
        for batch, cells_of in zip(batches, found, strict=True):
            for index, (names, metric) in enumerate(batch):
                cells = cells_of.get(str(index)) if cells_of is not None else None
                if cells_of is None:
                    compiled = extent_statement(metric, catalog, source.dialect, self._zone)
                    cells = await _one(source, names, compiled, deadline)
                self._record(names, _extent(cells, self._instant(asked)))

    async def _batches(
        self, source: Source, batches: list[list[Metric]], deadline: float
    ) -> list[dict[str, list[str | None]] | None]:
        """What each batch's statement found (:meth:`_batch`), one statement running at a time
        while the next is built."""
        found: list[dict[str, list[str | None]] | None] = [None] * len(batches)
        send, receive = anyio.create_memory_object_stream[tuple[int, list[Metric], CompiledQuery]]()

        async def run() -> None:
            async with receive:
                async for index, metrics, compiled in receive:
                    found[index] = await _batch(source, compiled, len(metrics), deadline)

        async with anyio.create_task_group() as group:
            group.start_soon(run)
            async with send:
                for index, metrics in enumerate(batches):
                    if len(metrics) < 2:  # one extent is asked by its own statement
                        continue
                    compiled = batched_extent_statement(
                        metrics, self._pinned.catalog, source.dialect, self._zone
                    )
                    await send.send((index, metrics, compiled))
        return found

    def _record(self, names: tuple[str, ...], extent: Extent | None) -> None:
        for name in names:
            if extent is None:
                self.known.pop(name, None)
            else:
                self.known[name] = extent


async def _batch(
    source: Source, compiled: CompiledQuery, count: int, deadline: float
) -> dict[str, list[str | None]] | None:
    """Each extent's two cells by its position in the batch of ``count``, as the batch's
    statement found them (two NULLs for one that reads no row, as its own statement finds);
    None when it failed, or gave a row for no position of the batch or two for one (each is
    then asked alone)."""
    try:
        rows = await run_certified(source, compiled, deadline_seconds=deadline, max_rows=count)
    except Exception:  # asked again one at a time, where a failure is logged per extent
        return None
    if not is_successful(rows):
        return None
    fetched = rows.unwrap()
    found = {row[0]: row[1:] for row in fetched}
    positions = [str(index) for index in range(count)]
    if len(found) != len(fetched) or not found.keys() <= set(positions):
        return None
    return {position: found.get(position, [None, None]) for position in positions}


async def _one(
    source: Source, names: tuple[str, ...], compiled: CompiledQuery, deadline: float
) -> list[str | None] | None:
    """The two cells of one extent's own statement; None (the cause in the log) when it fails."""
    try:
        rows = await run_certified(source, compiled, deadline_seconds=deadline, max_rows=1)
    except Exception:  # a source that breaks costs its metrics their extent, no more
        log.exception("source %s: where the data of %s is: not known", source.alias, names)
        rows = Failure(refusal(RefusalCode.SOURCE_UNAVAILABLE))
    if not is_successful(rows):
        code = rows.failure().code.value
        log.warning("source %s: where the data of %s is: not known (%s)", source.alias, names, code)
        return None
    found = rows.unwrap()
    return found[0] if found else []


def _extent(cells: list[str | None] | None, as_of: str) -> Extent | None:
    """The extent the statement's two cells state; None for no row, NULLs or no dates."""
    if not cells or cells[0] is None or cells[1] is None:
        return None
    try:
        first, last = (datetime.date.fromisoformat(cell or "") for cell in cells[:2])
    except ValueError:
        return None
    return Extent(first=first, last=last, as_of=as_of)
