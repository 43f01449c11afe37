"""``list_values``: one page of a dimension's distinct values, read from its metric's source.

The metric and dimension are looked up in what the caller sees (a hidden metric is refused
exactly as a missing one, whatever dimension is named), the page's statement is compiled for
the source's dialect (:mod:`sutura.core.sql.values`) and run under the call's deadline with
the row cap of one more than the page, the values are cut to the page's byte bound and both
halves are built from the one value. A page is kept in its source's answer cache, when the
source keeps one, under the catalog's digest, the request, the caller's view and the day: a
changed catalog is a new digest, so a page is never served across a catalog change.
"""

import datetime
from collections.abc import Callable, Mapping

import anyio
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.boundary.answer_cache import AnswerCaches, values_key
from sutura.boundary.observe import Observers, Stage
from sutura.boundary.sources.skeleton import Source, TextRows, run_certified
from sutura.boundary.views import View
from sutura.core.nouns.answer import ExecutedAs, Refused
from sutura.core.nouns.refusal import Refusal, RefusalCode, refusal
from sutura.core.nouns.source_facts import SourceFacts
from sutura.core.nouns.values import Values, ValuesRequest
from sutura.core.outcome.provenance import provenance_for
from sutura.core.sql.values import Target, target_of, values_statement
from sutura.core.text.values import page_of
from sutura.core.tool.caller import Caller
from sutura.core.tool.capability import Capability
from sutura.core.tool.codec import halves_of, values_halves
from sutura.core.tool.reply import Answered, Declined, Reply


class ValueLookup:
    """Pages of values over a service's sources, answer caches and watchers."""

    def __init__(
        self,
        *,
        sources: Mapping[str, Source],
        answers: AnswerCaches,
        observers: Observers,
        digest: str,
        today: Callable[[], datetime.date],
        now: Callable[[], datetime.datetime],
        instant: Callable[[datetime.datetime], str],
        facts: Callable[[], Mapping[str, SourceFacts]],
    ) -> None:
        self._sources = sources
        self._answers = answers
        self._observers = observers
        self._digest = digest
        self._today = today
        self._now = now
        self._instant = instant
        self._facts = facts

    async def reply(
        self, request: ValuesRequest, view: View, caller: Caller, seconds: float
    ) -> Reply:
        """The page ``request`` asks for, as ``caller`` (seeing ``view``) may see it, within
        ``seconds``; from the source's answer cache when it holds the page."""
        target = target_of(view.pinned, request.metric, request.dimension)
        if not is_successful(target):
            return _declined(target.failure())
        found = target.unwrap()
        model = view.pinned.catalog.model(found.metric.model)
        alias = None if model is None else model.source
        cache = None if alias is None else self._answers.of_source(alias)
        key = values_key(self._digest, request, caller.audiences, self._today())
        kept = None if cache is None else cache.get(key, self._now())
        if kept is not None:
            return kept
        page = await self._page(request, view, found, seconds)
        if not is_successful(page):
            return _declined(page.failure())
        value, read_at = page.unwrap()
        with self._observers.stage(Stage.RENDER):
            halves = values_halves(value)
        if not is_successful(halves):
            return _declined(halves.failure())
        answered = Answered(capability=Capability.LIST_VALUES, halves=halves.unwrap(), value=value)
        if cache is not None:
            cache.put(key, answered, read_at)
        return answered

    async def _page(
        self, request: ValuesRequest, view: View, target: Target, seconds: float
    ) -> Result[tuple[Values, datetime.datetime], Refusal]:
        catalog = view.pinned.catalog
        model = catalog.model(target.metric.model)
        source = None if model is None else self._sources.get(model.source)
        if source is None:  # every metric's source is opened at startup
            return Failure(refusal(RefusalCode.SOURCE_UNAVAILABLE))
        facts = self._facts()[source.alias]
        with self._observers.stage(Stage.COMPILE):
            compiled = values_statement(target, request, catalog, facts)
        rows: Result[TextRows, Refusal] = Failure(refusal(RefusalCode.DEADLINE_EXCEEDED))
        with (
            anyio.move_on_after(seconds),
            self._observers.stage(Stage.RUN),
            self._observers.source_query(source.alias),
        ):
            rows = await run_certified(
                source, compiled, deadline_seconds=seconds, max_rows=request.page_size + 1
            )
        read_at = self._now()
        texts = rows.map(lambda fetched: [row[0] for row in fetched])
        page = texts.bind(lambda values: page_of(values, request))
        if not is_successful(page):
            return Failure(page.failure())
        cut = page.unwrap()
        provenance = provenance_for(
            view.pinned,
            [request.metric] if request.metric in view.pinned.metric_digests else [],
            [ExecutedAs(source=source.alias, posture=source.posture)],
            computed_at=self._instant(read_at),
        )
        value = Values(
            metric=request.metric,
            dimension=request.dimension,
            offset=request.offset,
            values=cut.values,
            provenance=provenance,
            next_offset=cut.next_offset,
            cut=cut.cut,
        )
        return Success((value, read_at))


def _declined(reason: Refusal) -> Declined:
    refused = Refused(reason=reason)
    return Declined(capability=Capability.LIST_VALUES, halves=halves_of(refused), value=refused)
