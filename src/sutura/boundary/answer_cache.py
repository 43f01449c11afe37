"""The answer cache: certified answers kept per source, off unless a source enables it.

An entry is keyed by everything an answer depends on besides the data: the pinned
definitions' digest, the question re-encoded canonically, the caller's view (the set of
audiences it sees) and the day ``range.last`` counts back from. A page of a dimension's
values (``list_values``) is kept beside the answers, under a key of its own
(:func:`values_key`). Only answers are kept: a refusal (a fault, a deadline, a result too
large, a zero denominator) is computed again on every ask, so a passing fault is never served
twice and a refusal never outlives its cause.

A source's entries live as long as its ``max_age_seconds`` (measured on the service's injected
wall clock, from the instant the rows were read), or the process's lifetime when it has none
(DuckDB only; settings refuse it elsewhere). Each source's entries hold at most ``max_bytes``
of replies (both halves); the least recently used go first. A reply larger than the bound is
never kept.
"""

import datetime
from collections import OrderedDict
from collections.abc import Mapping
from typing import Final, NamedTuple, assert_never

import msgspec

from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.question import Question
from sutura.core.nouns.values import ValuesRequest
from sutura.core.settings import CacheSettings, SourceSettings
from sutura.core.tool.caller import EveryAudience
from sutura.core.tool.reply import Answered


class CacheKey(NamedTuple):
    """What a cached answer depends on besides the data."""

    digest: str
    question: bytes
    view: tuple[str, ...] | None
    today: datetime.date


def cache_key(
    digest: str,
    question: Question,
    audiences: frozenset[str] | EveryAudience,
    today: datetime.date,
) -> CacheKey:
    """The key of ``question`` asked by a caller seeing ``audiences`` on ``today``."""
    asked = msgspec.json.encode(question, order="deterministic")
    return CacheKey(digest, asked, _view(audiences), today)


def values_key(
    digest: str,
    request: ValuesRequest,
    audiences: frozenset[str] | EveryAudience,
    today: datetime.date,
) -> CacheKey:
    """The key of a page of values (``list_values``) asked by a caller seeing ``audiences``,
    kept apart from every question's by the capability's name before the request."""
    asked = _VALUES + msgspec.json.encode(request, order="deterministic")
    return CacheKey(digest, asked, _view(audiences), today)


_VALUES: Final = b"list_values:"


def _view(audiences: frozenset[str] | EveryAudience) -> tuple[str, ...] | None:
    match audiences:
        case EveryAudience.EVERY:
            return None
        case frozenset():
            return tuple(sorted(audiences))
        case _:
            assert_never(audiences)


class _Entry(NamedTuple):
    reply: Answered
    size: int
    computed_at: datetime.datetime


class CacheCounts(NamedTuple):
    """One source's cache counters since the service started."""

    hits: int
    misses: int
    evictions: int
    entries: int
    bytes: int


class SourceCache:
    """One source's cached answers: LRU by the bytes of their replies, with an optional age."""

    def __init__(self, settings: CacheSettings) -> None:
        self._max_age = (
            None
            if settings.max_age_seconds is None
            else datetime.timedelta(seconds=settings.max_age_seconds)
        )
        self._max_bytes = settings.max_bytes
        self._entries: OrderedDict[CacheKey, _Entry] = OrderedDict()
        self._bytes = 0
        self._hits = 0
        self._misses = 0
        self._evictions = 0

    def get(self, key: CacheKey, now: datetime.datetime) -> Answered | None:
        """The reply kept for ``key`` unless it is older than the source's maximum age."""
        entry = self._entries.get(key)
        if (
            entry is not None
            and self._max_age is not None
            and now - entry.computed_at > self._max_age
        ):
            self._drop(key)
            entry = None
        if entry is None:
            self._misses += 1
            return None
        self._entries.move_to_end(key)
        self._hits += 1
        return entry.reply

    def put(self, key: CacheKey, reply: Answered, computed_at: datetime.datetime) -> None:
        """Keep ``reply``, evicting the least recently used until the bound holds."""
        size = len(reply.halves.text.encode("utf-8", "surrogatepass")) + len(
            reply.halves.structured
        )
        if size > self._max_bytes:
            return
        if key in self._entries:
            self._drop(key)
        while self._entries and self._bytes + size > self._max_bytes:
            oldest = next(iter(self._entries))
            self._drop(oldest)
            self._evictions += 1
        self._entries[key] = _Entry(reply, size, computed_at)
        self._bytes += size

    def counts(self) -> CacheCounts:
        """Hits, misses, evictions, entries and bytes held."""
        return CacheCounts(
            self._hits, self._misses, self._evictions, len(self._entries), self._bytes
        )

    def _drop(self, key: CacheKey) -> None:
        entry = self._entries.pop(key)
        self._bytes -= entry.size


class AnswerCaches:
    """A service's answer caches: one per source that enables one, none for the others."""

    def __init__(self, sources: Mapping[str, SourceSettings]) -> None:
        self._caches = {
            alias: SourceCache(s.cache) for alias, s in sorted(sources.items()) if s.cache.enabled
        }

    def of(self, question: Question, seen: PinnedDefinitions) -> SourceCache | None:
        """The cache of the source ``question``'s first metric reads, if it keeps one (none for
        a metric outside ``seen``, what the caller sees: resolving refuses it)."""
        if not self._caches or not question.metrics:
            return None
        metric = seen.catalog.metric(question.metrics[0])
        model = None if metric is None else seen.catalog.model(metric.model)
        return None if model is None else self._caches.get(model.source)

    def of_source(self, alias: str) -> SourceCache | None:
        """The cache of the source ``alias``, if it keeps one."""
        return self._caches.get(alias)

    def counts(self) -> dict[str, CacheCounts]:
        """Each caching source's hits, misses, evictions, entries and bytes, by alias."""
        return {alias: cache.counts() for alias, cache in self._caches.items()}
