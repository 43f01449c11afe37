"""The one call every surface makes: ``call(capability, arguments, caller, deadline) -> Reply``.

Everything a call needs happens here, once, in this order: may the caller use the
capability; is it offered; decode the arguments (one codec); plan a question over the catalog
the caller sees (:class:`~sutura.boundary.planning.Planner`); run it on its source under the
deadline; shape the rows; build both halves from the one value; time the call and write its
audit record. A transport only maps the :data:`~sutura.core.tool.reply.Reply` to its own
envelope, and reaches anything else it needs through the named methods below.

What a call reads besides the data lives in objects of its own: the caller's view of the
catalog (:mod:`sutura.boundary.views`), its prompt (:mod:`sutura.boundary.prompts`), its
plans and their kept resolutions (:mod:`sutura.boundary.planning`) and each source's answer
cache (:mod:`sutura.boundary.answer_cache`).

A refusal is a reply like an answer. Anything unexpected is :class:`Failed`, with a fixed
sentence; its cause goes to the ``sutura.service`` log, never to the caller.
"""

import asyncio
import datetime
import logging
import time
from collections.abc import Callable, Mapping
from typing import Final, assert_never

import anyio
from returns.pipeline import is_successful
from returns.result import Result

from sutura.boundary.answer_cache import AnswerCaches, CacheCounts, cache_key
from sutura.boundary.extents import DataExtents
from sutura.boundary.logs import request_scope
from sutura.boundary.observe import CallWatcher, Observers, Stage, Tracing
from sutura.boundary.planning import Planner, known_facts
from sutura.boundary.prompts import Prompts
from sutura.boundary.sources.skeleton import Capacity, RawRunner, Source, run_certified, run_raw
from sutura.boundary.values import ValueLookup
from sutura.boundary.views import View, Views
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.answer import Answer, ExecutedAs, Outcome, Refused
from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.question import Question, QuestionError
from sutura.core.nouns.refusal import Refusal, RefusalCode, refusal
from sutura.core.nouns.source_facts import SourceFacts
from sutura.core.nouns.values import Values
from sutura.core.outcome.provenance import provenance_for
from sutura.core.question.resolve import Resolved
from sutura.core.raw.outcome import RawOutcome, RawRefusal, RawRefusalCode, RawRows, raw_refusal
from sutura.core.settings import Settings
from sutura.core.sql.compiled import CompiledQuery
from sutura.core.sql.planning import Plan
from sutura.core.sql.shape import shape_rows
from sutura.core.tool.arguments import (
    Arguments,
    decode_catalog_request,
    decode_question,
    decode_statement_arguments,
    decode_values_request,
    malformed_question,
)
from sutura.core.tool.audit import AuditRecord, statement_digest
from sutura.core.tool.caller import Caller, EveryAudience
from sutura.core.tool.capability import Capability
from sutura.core.tool.codec import (
    Halves,
    compiled_halves,
    halves_of,
    raw_halves,
    raw_outcome_halves,
)
from sutura.core.tool.reply import (
    Answered,
    Declined,
    Failed,
    NotOffered,
    NotPermitted,
    Reply,
    outcome_code,
)
from sutura.core.tool.written import AnswerWriter, Written

log = logging.getLogger("sutura.service")
audit_log = logging.getLogger("sutura.audit")

_DEADLINE: Final = refusal(RefusalCode.DEADLINE_EXCEEDED)


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
        facts: Mapping[str, SourceFacts] | None = None,
    ) -> None:
        self._settings = settings
        self._pinned = pinned
        self._sources = sources
        self._runner = runner
        self._offered = offered
        self._today = today
        self._clock = now
        self._instructions = instructions
        self._observers = Observers()
        self._extents = DataExtents(pinned, settings, sources, self._now, utc_instant)
        self._views = Views(pinned, settings, instructions)
        self._views_generation = 0  # made with the extents of this generation (none yet)
        self._prompts = self._prompts_over(self._views)
        self._planner = Planner(settings, today, self._observers, lambda: self.facts)
        self._answers = AnswerCaches(settings.sources)
        self.facts: Mapping[str, SourceFacts] = known_facts(settings) if facts is None else facts
        """What is known of each source: its dialect, and the models' columns it holds as
        ``CHAR(n)``, learnt when startup checks the models (the statements compiled for it read
        them without the padding: core/sql/expression.py)."""
        self._values = ValueLookup(
            sources=sources,
            answers=self._answers,
            observers=self._observers,
            digest=pinned.digest,
            today=today,
            now=self._now,
            instant=utc_instant,
            facts=lambda: self.facts,
        )

    async def call(
        self,
        capability: Capability,
        arguments: Arguments,
        caller: Caller,
        deadline: float | None = None,
    ) -> Reply:
        """What ``caller`` asking ``capability`` with ``arguments`` comes to, within
        ``deadline`` seconds (or ``limits.deadline_seconds``, if sooner or none is given)."""
        started = time.monotonic()
        seconds = self.longest_call() if deadline is None else deadline
        asked = _Asked()
        reply: Reply | None = None
        with request_scope(caller.request_id), self._observers.call_span(capability) as span:
            try:
                reply = await self._reply(capability, arguments, caller, seconds, asked)
            except Exception:
                log.exception("%s failed (request %s)", capability.value, caller.request_id)
                reply = Failed(capability=capability)
            finally:
                took = time.monotonic() - started
                outcome = "no_outcome" if reply is None else outcome_code(reply)
                if span is not None:
                    span.set_attribute("sutura.outcome", outcome)
                self._observers.call_done(capability, outcome, took)
                self._audit(capability, caller, reply, asked, took)
        return reply

    def prompt_for(self, caller: Caller) -> str:
        """The agent prompt ``caller`` is given: the catalog its audiences see, the tools its
        scopes permit (:class:`~sutura.boundary.prompts.Prompts`)."""
        return self._prompts.for_caller(caller)

    async def refresh_extents(self) -> None:
        """Ask the sources where each metric's data is, when not known or older than its
        source's answers may be (boundary/extents.py); the views and prompts are made again
        with it."""
        await self._extents.refresh()
        if self._views_generation != self._extents.generation:
            self._views_generation = self._extents.generation
            known = dict(self._extents.known)
            self._views = Views(self._pinned, self._settings, self._instructions, known)
            self._prompts = self._prompts_over(self._views)

    def _prompts_over(self, views: Views) -> Prompts:
        """Every caller's prompt over ``views`` (each view derived once), with where each
        metric's data is as last asked."""
        return Prompts(
            self._pinned,
            self._settings,
            self._instructions,
            lambda audiences: views.of(audiences).pinned,
            dict(self._extents.known),
        )

    def plan(self, question: Question, caller: Caller) -> Result[Plan, Refusal | QuestionError]:
        """``question`` planned over the catalog ``caller`` sees, touching no data (a hidden
        metric is refused exactly as a missing one)."""
        view = self._views.of(caller.audiences)
        return self._planner.plan(question, view.pinned, view.key)

    async def answer(self, question: Question, deadline: float) -> Outcome | QuestionError:
        """The outcome of ``question`` over the whole catalog, as the anchors ask (surfaces go
        through :meth:`call`)."""
        outcome = await self._answer_in(self._views.of(EveryAudience.EVERY), question, deadline)
        match outcome:
            case Written(answer=answer):
                return answer
            case Refused() | QuestionError():
                return outcome
            case _:
                assert_never(outcome)

    def longest_call(self) -> float:
        """The longest any call may take (``limits.deadline_seconds``)."""
        return self._settings.limits.deadline_seconds

    def definitions(self) -> PinnedDefinitions:
        """The whole catalog as pinned (every metric, whoever asks)."""
        return self._pinned

    def offers(self, capability: Capability) -> bool:
        """Whether this service offers ``capability`` (``run_sql`` only when enabled)."""
        return capability in self._offered

    def source_dialects(self) -> dict[str, Dialect]:
        """The dialect of each opened source, by alias."""
        return {alias: source.dialect for alias, source in self._sources.items()}

    def capacities(self) -> dict[str, Capacity]:
        """How much of each opened source's work runs at once, by alias."""
        return {alias: source.capacity() for alias, source in self._sources.items()}

    def cache_counts(self) -> dict[str, CacheCounts]:
        """Each caching source's hits, misses, evictions, entries and bytes, by alias."""
        return self._answers.counts()

    def watch(self, watcher: CallWatcher) -> None:
        """Tell ``watcher`` every stage, call and busy source from now on."""
        self._observers.watch(watcher)

    def trace(self, tracing: Tracing) -> None:
        """Trace every call and stage in ``tracing``'s spans from now on."""
        self._observers.trace(tracing)

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
        if capability not in self._offered:
            return NotOffered(capability=capability)
        match capability:
            case Capability.DESCRIBE_CATALOG:
                request = decode_catalog_request(arguments)
                if not is_successful(request):
                    return request.failure()
                await self._extents_within(deadline)
                return self._views.of(caller.audiences).page(request.unwrap())
            case Capability.ASK_METRIC | Capability.COMPILE_QUESTION:
                question = decode_question(arguments)
                if not is_successful(question):
                    return malformed_question(question.failure(), capability)
                asked.metrics = list(question.unwrap().metrics)
                view = self._views.of(caller.audiences)
                if capability is Capability.COMPILE_QUESTION:
                    return _compiled_reply(
                        self._planner.plan(question.unwrap(), view.pinned, view.key)
                    )
                return await self._ask(question.unwrap(), deadline, view, caller)
            case Capability.RUN_SQL:
                return await self._raw(arguments, deadline, asked)
            case Capability.LIST_VALUES:
                return await self._list_values(arguments, caller, deadline, asked)
            case _:
                assert_never(capability)

    async def _raw(self, arguments: Arguments, deadline: float, asked: "_Asked") -> Reply:
        """``run_sql``'s reply: raw rows or a raw refusal, with both halves."""
        statement = decode_statement_arguments(arguments)
        if not is_successful(statement):
            return statement.failure()
        asked.statement = statement.unwrap().statement
        raw = await self._run_sql(asked.statement, deadline)
        with self._observers.stage(Stage.RENDER):
            return _raw_reply(raw)

    async def _list_values(
        self, arguments: Arguments, caller: Caller, deadline: float, asked: "_Asked"
    ) -> Reply:
        """``list_values``'s reply: one page of a dimension's values (boundary/values.py)."""
        values = decode_values_request(arguments)
        if not is_successful(values):
            return values.failure()
        page = values.unwrap()
        asked.metrics = [page.metric]
        view = self._views.of(caller.audiences)
        seconds = min(deadline, self.longest_call())
        return await self._values.reply(page, view, caller, seconds)

    async def _extents_within(self, deadline: float) -> None:
        """Where each metric's data is, asked again when due, within the call's deadline (a
        source that does not answer leaves the catalog as it was)."""
        if self._sources:
            with anyio.move_on_after(min(deadline, self._settings.limits.deadline_seconds)):
                await self.refresh_extents()

    def _now(self) -> datetime.datetime:
        """The injected wall clock, or :func:`utc_now` (read at the call, so a test may pin it)."""
        return utc_now() if self._clock is None else self._clock()

    async def _ask(self, question: Question, deadline: float, view: View, caller: Caller) -> Reply:
        """``ask_metric``'s reply: from the source's answer cache when it holds one, else
        answered, rendered and (an answer only) kept."""
        cache = self._answers.of(question, view.pinned)
        if cache is None:
            outcome = await self._answer_in(view, question, deadline)
            with self._observers.stage(Stage.RENDER):
                return _outcome_reply(outcome)
        key = cache_key(self._pinned.digest, question, caller.audiences, self._today())
        kept = cache.get(key, self._now())
        if kept is not None:
            return kept
        outcome = await self._answer_in(view, question, deadline)
        with self._observers.stage(Stage.RENDER):
            reply = _outcome_reply(outcome)
        match reply, outcome:
            case Answered(), Written(answer=Answer(provenance=provenance)):
                computed = datetime.datetime.fromisoformat(provenance.computed_at)
                cache.put(key, reply, computed)
            case _:
                pass
        return reply

    async def _answer_in(
        self, view: View, question: Question, deadline: float
    ) -> Written | Refused | QuestionError:
        """The outcome of ``question`` over the definitions ``view`` holds, within
        ``deadline`` seconds (or ``limits.deadline_seconds``, if sooner)."""
        seconds = min(deadline, self.longest_call())
        deadline_at = asyncio.get_running_loop().time() + seconds  # anyio's clock, read
        # Planned over what the caller sees, so a hidden metric is refused exactly as a missing
        # one; the provenance names the whole catalog's digest.
        planned = self._planner.plan(question, view.pinned, view.key)
        if not is_successful(planned):
            problem = planned.failure()
            return problem if isinstance(problem, QuestionError) else Refused(reason=problem)
        resolved, compiled = planned.unwrap()
        source = self._sources[compiled.source]
        if source.stops_in_place:
            # A plain timeout: anyio's scope and its lookups cost an answer more than the rest
            # of this method, and nothing here needs its shield.
            timeout = asyncio.timeout_at(deadline_at)
            try:
                async with timeout:
                    return await self._answer(resolved, compiled, source, seconds)
            except TimeoutError:
                if not timeout.expired():
                    raise
            return Refused(reason=_DEADLINE)
        with anyio.CancelScope(deadline=deadline_at):
            return await self._answer(resolved, compiled, source, seconds)
        return Refused(reason=_DEADLINE)

    async def _answer(
        self, resolved: Resolved, compiled: CompiledQuery, source: Source, seconds: float
    ) -> Written | Refused:
        max_rows = self._settings.limits.max_rows
        # Rows that need no shaping are written into both halves as they are fetched.
        writer = AnswerWriter(compiled.columns)
        fetching = None if compiled.needs_shaping else writer
        with self._observers.stage(Stage.RUN), self._observers.source_query(source.alias):
            rows = await run_certified(
                source,
                compiled,
                deadline_seconds=seconds,
                max_rows=max_rows,
                held=True,
                writer=fetching,
            )
            shaped = (  # rows written as fetched needed no shaping: shaping gives them back
                rows
                if fetching is not None
                else rows.bind(lambda fetched: shape_rows(compiled, fetched, max_rows))
            )
        if not is_successful(shaped):
            return Refused(reason=shaped.failure())
        if fetching is None:
            writer.extend(shaped.unwrap())
        executed = [ExecutedAs(source=source.alias, posture=source.posture)]
        provenance = provenance_for(
            self._pinned,
            resolved.metric_names,
            executed,
            resolved.stated_ranges,
            computed_at=utc_instant(self._now()),
            range_asked=resolved.stated_asked,
        )
        written = writer.finish(provenance)
        return written.unwrap() if is_successful(written) else Refused(reason=written.failure())

    async def _run_sql(self, statement: str, deadline: float) -> RawOutcome:
        runner = self._runner
        if runner is None:  # offered only with a runner; checked before decoding
            return raw_refusal(RawRefusalCode.SOURCE_UNAVAILABLE)
        limits = self._settings.limits
        with self._observers.stage(Stage.RUN), self._observers.source_query(runner.alias):
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
        if not audit_log.isEnabledFor(logging.INFO):
            return  # nobody keeps the record (the Python API's default): none is built
        statement = asked.statement
        record = AuditRecord(
            request_id=caller.request_id,
            subject=caller.subject,
            capability=capability.value,
            outcome="no_outcome" if reply is None else outcome_code(reply),
            duration_ms=round(1000 * seconds),
            definition_digest=self._pinned.digest,
            metrics=asked.metrics,
            rows=_rows_of(reply),
            statement_sha256=None if statement is None else statement_digest(statement),
        )
        # The line is the message, with no arguments: a record with none skips looking for a
        # mapping among them, and its message is never %-formatted (a % in the line stays).
        audit_log.info(record.line())


def utc_now() -> datetime.datetime:
    """The wall clock, in UTC: when an answer's rows were read (never what they count)."""
    return datetime.datetime.now(datetime.UTC)


def utc_instant(moment: datetime.datetime) -> str:
    """``moment`` in UTC as ISO 8601 with milliseconds and ``Z``.

    >>> utc_instant(datetime.datetime(2026, 12, 1, 13, 5, 7, 250000, tzinfo=datetime.UTC))
    '2026-12-01T13:05:07.250Z'
    """
    return moment.astimezone(datetime.UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


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
        case Answered(value=Values() as page):
            return len(page.values)
        case _:
            return None


def _outcome_reply(outcome: Written | Refused | QuestionError) -> Reply:
    """An answer (written with both halves as its rows arrived) or a refusal with both
    halves; a malformed question found while resolving."""
    match outcome:
        case QuestionError():
            return malformed_question(outcome)
        case Written(answer=answer, halves=written):
            return Answered(capability=Capability.ASK_METRIC, halves=written, value=answer)
        case Refused():
            return _declined(Capability.ASK_METRIC, outcome)
        case _:
            assert_never(outcome)


def _compiled_reply(planned: Result[Plan, Refusal | QuestionError]) -> Reply:
    """``compile_question``'s reply: the statement ``ask_metric`` would run, with both halves;
    or the refusal it would get before running, or the malformation."""
    capability = Capability.COMPILE_QUESTION
    if not is_successful(planned):
        problem = planned.failure()
        if isinstance(problem, QuestionError):
            return malformed_question(problem, capability)
        return _declined(capability, Refused(reason=problem))
    shown = compiled_halves(planned.unwrap()[1])
    if not is_successful(shown):
        return _declined(capability, Refused(reason=shown.failure()))
    halves, value = shown.unwrap()
    return Answered(capability=capability, halves=halves, value=value)


def _declined(capability: Capability, refused: Refused) -> Declined:
    return Declined(capability=capability, halves=halves_of(refused), value=refused)


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
