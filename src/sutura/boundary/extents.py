"""Where each metric's data is, asked of its source and asked again as often as answers age.

Every metric's extent (the first and last day of the rows it counts,
:mod:`sutura.core.sql.extent`) is asked of its source through the one source skeleton —
deadline, row cap, cell text — when a server starts and, otherwise, at the first
``describe_catalog``. It is asked again
once it is older than the source's ``cache.max_age_seconds``, the age an answer from the cache
may have; a source whose data can change and that sets none is asked again after
:data:`DEFAULT_MAX_AGE_SECONDS`; a DuckDB source never (its data cannot change while the
service runs). A statement that fails leaves its metrics without an extent, the cause in the
log: a catalog is never refused for it.
"""

import datetime
import logging
import math
from collections.abc import Callable, Mapping
from typing import Final, assert_never

import anyio
from returns.pipeline import is_successful
from returns.result import Failure

from sutura.boundary.sources.skeleton import Source, run_certified
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
from sutura.core.sql.extent import extent_statements

log = logging.getLogger("sutura.service")

DEFAULT_MAX_AGE_SECONDS: Final = 300.0
"""How old an extent of a source whose data can change may be, when it sets no cache age."""
_DEADLINE_SECONDS: Final = 10.0


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
        self._sources = sources
        self._now = now
        self._instant = instant
        self._asked: dict[str, datetime.datetime] = {}
        self._lock = anyio.Lock()
        self.known: dict[str, Extent] = {}

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

    async def refresh(self) -> bool:
        """Ask every source whose extents are missing or too old; whether any was asked."""
        if not self._stale():
            return False
        async with self._lock:
            stale = self._stale()  # another caller may have asked while this one waited
            for alias in stale:
                await self._ask(alias)
            return bool(stale)

    async def _ask(self, alias: str) -> None:
        source = self._sources[alias]
        deadline = min(self._settings.limits.deadline_seconds, _DEADLINE_SECONDS)
        asked = self._asked[alias] = self._now()
        for names, compiled in extent_statements(self._pinned.catalog, source.dialect):
            if compiled.source != alias:
                continue
            try:
                rows = await run_certified(source, compiled, deadline_seconds=deadline, max_rows=1)
            except Exception:  # a source that breaks costs its metrics their extent, no more
                log.exception("source %s: where the data of %s is: not known", alias, names)
                rows = Failure(refusal(RefusalCode.SOURCE_UNAVAILABLE))
            extent = _extent(rows.unwrap() if is_successful(rows) else None, self._instant(asked))
            if not is_successful(rows):
                code = rows.failure().code.value
                log.warning(
                    "source %s: where the data of %s is: not known (%s)", alias, names, code
                )
            for name in names:
                if extent is None:
                    self.known.pop(name, None)
                else:
                    self.known[name] = extent


def _extent(rows: list[list[str | None]] | None, as_of: str) -> Extent | None:
    """The extent the statement's one row states; None for no row, NULLs or no dates."""
    if not rows or rows[0][0] is None or rows[0][1] is None:
        return None
    try:
        first, last = (datetime.date.fromisoformat(cell or "") for cell in rows[0][:2])
    except ValueError:
        return None
    return Extent(first=first, last=last, as_of=as_of)
