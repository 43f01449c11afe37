"""The one call every surface makes: ``call(capability, arguments, caller, deadline) -> Reply``.

Everything a call needs happens here, once, in this order: may the caller use the
capability; is it offered; decode the arguments (one codec); resolve and compile a question
against the pinned catalog; run it on its source under the deadline; shape the rows; build
both halves from the one value; time the call and write its audit record. A transport only
maps the
:data:`~sutura.core.tool.reply.Reply` to its own envelope.

A refusal is a reply like an answer. Anything unexpected is :class:`Failed`, with a fixed
sentence; its cause goes to the ``sutura.service`` log, never to the caller.
"""

import datetime
import functools
import logging
import time
from collections.abc import Callable, Mapping
from typing import Final, assert_never

import anyio
from returns.pipeline import is_successful
from returns.result import Result

from sutura.boundary.answer_cache import CacheCounts, SourceCache, cache_key, source_caches
from sutura.boundary.logs import request_scope
from sutura.boundary.observe import Observers, Stage
from sutura.boundary.resolutions import Resolutions, view_key
from sutura.boundary.sources.skeleton import RawRunner, Source, run_certified, run_raw
from sutura.core.catalog.view.catalog import CatalogView
from sutura.core.catalog.view.pages import CatalogPages
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.answer import Answer, ExecutedAs, Outcome, Refused
from sutura.core.nouns.question import Question, QuestionError
from sutura.core.nouns.refusal import Refusal, RefusalCode, refusal
from sutura.core.outcome.provenance import provenance_for
from sutura.core.prompt import deployment_prompt
from sutura.core.question.resolve import resolve_question
from sutura.core.raw.outcome import RawOutcome, RawRefusal, RawRefusalCode, RawRows, raw_refusal
from sutura.core.settings import Settings
from sutura.core.sql.compile import compile_question
from sutura.core.sql.planning import Plan, dialect_of, plan_question, source_alias
from sutura.core.sql.shape import shape_rows
from sutura.core.tool.arguments import (
    Arguments,
    decode_catalog_request,
    decode_question,
    decode_statement_arguments,
    malformed_question,
)
from sutura.core.tool.audit import AuditRecord, statement_digest
from sutura.core.tool.caller import Audiences, Caller, EveryAudience
from sutura.core.tool.capability import Capability, CatalogRequest
from sutura.core.tool.codec import (
    Halves,
    catalog_halves,
    halves_of,
    outcome_halves,
    raw_halves,
    raw_outcome_halves,
)
from sutura.core.tool.reply import (
    Answered,
    Declined,
    Failed,
    Malformed,
    NotOffered,
    NotPermitted,
    Reply,
    outcome_code,
)
from sutura.core.tool.seen import seen_by

log = logging.getLogger("sutura.service")
audit_log = logging.getLogger("sutura.audit")

_DEADLINE: Final = refusal(RefusalCode.DEADLINE_EXCEEDED)
_MAX_VIEWS: Final = 256


class Service:
    """Every capability over pinned definitions and opened sources.

    Built and closed by :func:`sutura.boundary.startup.open_service` only, so its sources live
    exactly as long as the ``async with`` block that uses them.
    """

    def __init__(
        self,
        *,
        settings: Settings,
        pinned: PinnedDefinitions,
        sources: Mapping[str, Source],
        runner: RawRunner | None,
        offered: frozenset[Capability],
        today: Callable[[], datetime.date],
        instructions: str | None = None,
        now: Callable[[], datetime.datetime] | None = None,
    ) -> None:
        self.settings = settings
        self.pinned = pinned
        self.sources = sources
        self._runner = runner
        self._today = today
        self._clock = now
        self._caches = source_caches(settings.sources)
        self._instructions = instructions
        self._whole = _View.of(pinned, EveryAudience.EVERY, settings, instructions)
        self._resolutions = Resolutions()
        self._views: dict[frozenset[str], _View] = {}
        self.offered = offered
        self.observers = Observers()

    async def call(
        self, capability: Capability, arguments: Arguments, caller: Caller, deadline: float
    ) -> Reply:
        """What ``caller`` asking ``capability`` with ``arguments`` comes to, within
        ``deadline`` seconds (or ``limits.deadline_seconds``, if sooner)."""
        started = time.monotonic()
        asked = _Asked()
        reply: Reply | None = None
        with request_scope(caller.request_id), self.observers.call_span(capability) as span:
            try:
                reply = await self._reply(capability, arguments, caller, deadline, asked)
            except Exception:
                log.exception("%s failed (request %s)", capability.value, caller.request_id)
                reply = Failed(capability=capability)
            finally:
                seconds = time.monotonic() - started
                outcome = "no_outcome" if reply is None else outcome_code(reply)
                if span is not None:
                    span.set_attribute("sutura.outcome", outcome)
                self.observers.call_done(capability, outcome, seconds)
                self._audit(capability, caller, reply, asked, seconds)
        return reply

    def prompt_for(self, caller: Caller) -> str:
        """The agent prompt as ``caller`` may read it: their view of the catalog."""
        view = self._view(caller)
        if view.prompt is None:
            view.prompt = deployment_prompt(view.pinned, self.settings, self._instructions)
        return view.prompt

    def _view(self, caller: Caller) -> "_View":
        """The catalog as ``caller`` sees it, derived once per set of audiences."""
        match caller.audiences:
            case EveryAudience.EVERY:
                return self._whole
            case frozenset() as audiences:
                view = self._views.get(audiences)
                if view is None:
                    pinned = seen_by(self.pinned, audiences)
                    if len(self._views) >= _MAX_VIEWS:  # bounded: made-up group sets
                        self._views.clear()
                    view = _View.of(pinned, audiences, self.settings, self._instructions)
                    self._views[audiences] = view
                return view
            case _:
                assert_never(caller.audiences)

    def plan(self, question: Question, caller: Caller) -> Result[Plan, Refusal | QuestionError]:
        """Resolve and compile ``question`` without touching data, over the catalog ``caller``
        sees (a hidden metric is refused exactly as a missing one)."""
        return plan_question(question, self._view(caller).pinned, self.settings, self._today())

    async def answer(self, question: Question, deadline: float) -> Outcome | QuestionError:
        """The outcome of ``question`` over the whole catalog, as the anchors ask (surfaces go
        through :meth:`call`)."""
        return await self._answer_in(self._whole, question, deadline)

    async def _answer_in(
        self, view: "_View", question: Question, deadline: float
    ) -> Outcome | QuestionError:
        """The outcome of ``question`` over the definitions ``view`` holds."""
        seconds = min(deadline, self.settings.limits.deadline_seconds)
        with anyio.move_on_after(seconds):
            return await self._answer(question, seconds, view)
        return Refused(reason=_DEADLINE)

    async def _reply(
        self,
        capability: Capability,
        arguments: Arguments,
        caller: Caller,
        deadline: float,
        asked: "_Asked",
    ) -> Reply:
        # The caller's scope first: a caller who may not use a capability learns nothing more
        # about it (not even whether this deployment offers it).
        if not caller.permits(capability):
            return NotPermitted(capability=capability)
        if capability not in self.offered:
            return NotOffered(capability=capability)
        match capability:
            case Capability.DESCRIBE_CATALOG:
                request = decode_catalog_request(arguments)
                if not is_successful(request):
                    return request.failure()
                return self._view(caller).page(request.unwrap())
            case Capability.ASK_METRIC:
                question = decode_question(arguments)
                if not is_successful(question):
                    return malformed_question(question.failure())
                asked.metrics = list(question.unwrap().metrics)
                return await self._ask(question.unwrap(), deadline, self._view(caller), caller)
            case Capability.RUN_SQL:
                statement = decode_statement_arguments(arguments)
                if not is_successful(statement):
                    return statement.failure()
                asked.statement = statement.unwrap().statement
                raw = await self._run_sql(asked.statement, deadline)
                with self.observers.stage(Stage.RENDER):
                    return _raw_reply(raw)
            case _:
                assert_never(capability)

    def _now(self) -> datetime.datetime:
        """The injected wall clock, or :func:`utc_now` (read at the call, so a test may pin it)."""
        return utc_now() if self._clock is None else self._clock()

    def cache_counts(self) -> dict[str, CacheCounts]:
        """Each caching source's hits, misses, evictions, entries and bytes, by alias."""
        return {alias: cache.counts() for alias, cache in self._caches.items()}

    async def _ask(
        self, question: Question, deadline: float, view: "_View", caller: Caller
    ) -> Reply:
        """``ask_metric``'s reply: from the source's answer cache when it holds one, else
        answered, rendered and (an answer only) kept."""
        cache = self._cache_of(question, view.pinned)
        if cache is None:
            outcome = await self._answer_in(view, question, deadline)
            with self.observers.stage(Stage.RENDER):
                return _outcome_reply(outcome)
        key = cache_key(self.pinned.digest, question, caller.audiences, self._today())
        kept = cache.get(key, self._now())
        if kept is not None:
            return kept
        outcome = await self._answer_in(view, question, deadline)
        with self.observers.stage(Stage.RENDER):
            reply = _outcome_reply(outcome)
        match reply, outcome:
            case Answered(), Answer(provenance=provenance):
                computed = datetime.datetime.fromisoformat(provenance.computed_at)
                cache.put(key, reply, computed)
            case _:
                pass
        return reply

    def _cache_of(self, question: Question, seen: PinnedDefinitions) -> SourceCache | None:
        """The answer cache of the source ``question``'s first metric reads, if it keeps one
        (none for a metric the caller does not see: resolving refuses it)."""
        if not self._caches or not question.metrics:
            return None
        metric = seen.catalog.metric(question.metrics[0])
        model = None if metric is None else seen.catalog.model(metric.model)
        return None if model is None else self._caches.get(model.source)

    async def _answer(
        self, question: Question, seconds: float, view: "_View"
    ) -> Outcome | QuestionError:
        # Resolved against what the caller sees, so a hidden metric is refused exactly as a
        # missing one; the provenance names the whole catalog's digest. A resolution is a pure
        # function of the view, the question and the day, so it is kept under all three.
        seen = view.pinned
        with self.observers.stage(Stage.RESOLVE):
            today = self._today()
            resolving = self._resolutions.resolved(
                view.key,
                question,
                today,
                lambda: resolve_question(question, seen, self.settings.limits, today),
            )
        if not is_successful(resolving):
            problem = resolving.failure()
            return problem if isinstance(problem, QuestionError) else Refused(reason=problem)
        resolved = resolving.unwrap()
        with self.observers.stage(Stage.COMPILE):
            alias = source_alias(resolved, seen)
            dialect = dialect_of(self.settings.sources[alias])
            compiled = compile_question(resolved, seen.catalog, dialect)
        source = self.sources[compiled.source]
        with self.observers.stage(Stage.RUN), self.observers.source_query(source.alias):
            rows = await run_certified(
                source, compiled, deadline_seconds=seconds, max_rows=self.settings.limits.max_rows
            )
            shaped = rows.bind(
                lambda fetched: shape_rows(compiled, fetched, self.settings.limits.max_rows)
            )
        if not is_successful(shaped):
            return Refused(reason=shaped.failure())
        executed = [ExecutedAs(source=source.alias, posture=source.posture)]
        provenance = provenance_for(
            self.pinned,
            resolved.metric_names,
            executed,
            resolved.stated_ranges,
            computed_at=utc_instant(self._now()),
        )
        return Answer(columns=list(compiled.columns), rows=shaped.unwrap(), provenance=provenance)

    async def _run_sql(self, statement: str, deadline: float) -> RawOutcome:
        runner = self._runner
        if runner is None:  # offered only with a runner; checked before decoding
            return raw_refusal(RawRefusalCode.SOURCE_UNAVAILABLE)
        limits = self.settings.limits
        with self.observers.stage(Stage.RUN), self.observers.source_query(runner.alias):
            return await run_raw(
                runner,
                statement,
                deadline_seconds=min(deadline, limits.deadline_seconds),
                max_rows=limits.max_rows,
                grace_seconds=runner.grace_seconds,
            )

    def _audit(
        self,
        capability: Capability,
        caller: Caller,
        reply: Reply | None,
        asked: "_Asked",
        seconds: float,
    ) -> None:
        statement = asked.statement
        record = AuditRecord(
            request_id=caller.request_id,
            subject=caller.subject,
            capability=capability.value,
            outcome="no_outcome" if reply is None else outcome_code(reply),
            duration_ms=round(1000 * seconds),
            definition_digest=self.pinned.digest,
            metrics=asked.metrics,
            rows=_rows_of(reply),
            statement_sha256=None if statement is None else statement_digest(statement),
        )
        audit_log.info("%s", record.line())


def utc_now() -> datetime.datetime:
    """The wall clock, in UTC: when an answer's rows were read (never what they count)."""
    return datetime.datetime.now(datetime.UTC)


def utc_instant(moment: datetime.datetime) -> str:
    """``moment`` in UTC as ISO 8601 with milliseconds and ``Z``.

    >>> utc_instant(datetime.datetime(2026, 12, 1, 13, 5, 7, 250000, tzinfo=datetime.UTC))
    '2026-12-01T13:05:07.250Z'
    """
    return moment.astimezone(datetime.UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


class _View:
    """One view of the catalog: its definitions, its catalog reply, its pages, its prompt
    (each made by its first reader: a check, a question or an answer reads none of them, and
    a catalog of 2,000 metrics took a fifth of a second to render and page)."""

    def __init__(
        self,
        pinned: PinnedDefinitions,
        key: tuple[str, ...] | None,
        build: Callable[[], CatalogView],
    ) -> None:
        self.pinned = pinned
        self.key = key
        self._build = build
        self.prompt: str | None = None
        """The agent prompt of this view, made by its first reader: ``sutura mcp`` tells its
        caller a prompt of its own (:func:`sutura.transports.mcp.server.instructions_of`), so
        one made at startup would be made twice on the way to a first answer."""

    @functools.cached_property
    def _catalog_view(self) -> CatalogView:
        return self._build()

    @functools.cached_property
    def catalog(self) -> Reply:
        """The whole catalog's reply (both halves)."""
        return _catalog_reply(self._catalog_view)

    @functools.cached_property
    def pages(self) -> CatalogPages:
        """The catalog in pages."""
        return CatalogPages.of(self._catalog_view)

    @classmethod
    def of(
        cls,
        pinned: PinnedDefinitions,
        audiences: Audiences,
        settings: Settings,
        instructions: str | None,
    ) -> "_View":
        """The view of ``pinned`` (what ``audiences`` see) under the operator's prose setting
        and instructions."""
        prose = settings.prompt.catalog_prose
        return cls(
            pinned,
            view_key(audiences),
            functools.partial(CatalogView.of, pinned, prose, instructions),
        )

    def page(self, request: CatalogRequest) -> Reply:
        """The whole catalog when it fits one page and no search or later page is asked for;
        else the page asked for, or why there is none."""
        pages = self.pages
        if pages.whole and request.page == 1 and not pages.searched(request.search):
            return self.catalog
        page = pages.page(request.search, request.page)
        if not is_successful(page):
            capability = Capability.DESCRIBE_CATALOG
            return Malformed(capability=capability, field="$.page", problem=page.failure())
        return _catalog_reply(page.unwrap())


class _Asked:
    """What a call asked for, as its audit record names it (filled while it is decoded)."""

    def __init__(self) -> None:
        self.metrics: list[str] = []
        self.statement: str | None = None


def _rows_of(reply: Reply | None) -> int | None:
    """How many rows an answer or raw result carried (none for anything else)."""
    match reply:
        case Answered(value=Answer() | RawRows() as value):
            return len(value.rows)
        case _:
            return None


def _catalog_reply(view: CatalogView) -> Reply:
    """``describe_catalog``'s reply: both halves of ``view`` (the whole catalog, under the
    operator's prose setting, with the operator's instructions last; or a page of it)."""
    halves = catalog_halves(view)
    if is_successful(halves):
        return Answered(
            capability=Capability.DESCRIBE_CATALOG, halves=halves.unwrap(), value=view.body
        )
    refused = Refused(reason=halves.failure())
    return Declined(
        capability=Capability.DESCRIBE_CATALOG, halves=halves_of(refused), value=refused
    )


def _outcome_reply(outcome: Outcome | QuestionError) -> Reply:
    """An answer or a refusal with both halves; a malformed question found while resolving."""
    match outcome:
        case QuestionError():
            return malformed_question(outcome)
        case Answer():
            halves = outcome_halves(outcome)
            if is_successful(halves):
                return Answered(
                    capability=Capability.ASK_METRIC, halves=halves.unwrap(), value=outcome
                )
            return _declined(Refused(reason=halves.failure()))
        case Refused():
            return _declined(outcome)
        case _:
            assert_never(outcome)


def _declined(refused: Refused) -> Declined:
    return Declined(capability=Capability.ASK_METRIC, halves=halves_of(refused), value=refused)


def _raw_reply(outcome: RawOutcome) -> Reply:
    """Raw rows or a raw refusal, with both halves (or the refusal replacing both)."""
    halves = raw_outcome_halves(outcome)
    if not is_successful(halves):
        refused = halves.failure()
        return Declined(capability=Capability.RUN_SQL, halves=raw_halves(refused), value=refused)
    both: Halves = halves.unwrap()
    match outcome:
        case RawRows():
            return Answered(capability=Capability.RUN_SQL, halves=both, value=outcome)
        case RawRefusal():
            return Declined(capability=Capability.RUN_SQL, halves=both, value=outcome)
        case _:
            assert_never(outcome)
