"""The answering service: question → resolve → compile → source → shape → answer.

It is the one place the pure core meets the sources. Every transport calls it; none of them
touch a source directly. A refusal is an outcome; a :class:`QuestionError` is a malformed
question; anything unexpected is a failure the transport reports with a fixed sentence.
"""

import datetime
import logging
from collections.abc import Callable, Mapping
from typing import assert_never

from returns.result import Result, Success

from sutura.boundary.raw_sql.audit import run_audited
from sutura.boundary.raw_sql.base import RawRunner
from sutura.boundary.sources.base import Source
from sutura.core.base import Frozen
from sutura.core.catalog.model import Metric
from sutura.core.catalog.pinned import PinnedDefinitions
from sutura.core.outcome.answer import Answer, ExecutedAs, Outcome, Refused
from sutura.core.outcome.provenance import provenance_for
from sutura.core.outcome.refusal import Refusal
from sutura.core.question.model import Question, QuestionError, Range
from sutura.core.question.resolve import Resolved, resolve_question
from sutura.core.raw.outcome import RawOutcome
from sutura.core.settings import (
    DuckDBSourceSettings,
    PostgresSourceSettings,
    Settings,
    SourceSettings,
    SparkSourceSettings,
)
from sutura.core.sql.compile import CompiledQuery, Dialect, compile_question
from sutura.core.sql.shape import shape_rows

log = logging.getLogger("sutura.answering")


class AnchorMismatch(Frozen, frozen=True):
    """An anchor that did not reproduce: which metric, what was expected and what was found."""

    metric: str
    expected: str
    found: str

    def sentence(self) -> str:
        """One line for the operator."""
        return (
            f"anchor mismatch: metric {self.metric}: expected {self.expected}, found {self.found}"
        )


class Service:
    """Answers certified questions from pinned definitions over configured sources."""

    def __init__(
        self,
        *,
        settings: Settings,
        pinned: PinnedDefinitions,
        sources: Mapping[str, Source],
        today: Callable[[], datetime.date],
        prompt: str = "",
        raw: RawRunner | None = None,
    ) -> None:
        self.settings = settings
        self.prompt = prompt
        self.pinned = pinned
        self.sources = sources
        self.raw = raw
        self._today = today

    def plan(
        self, question: Question
    ) -> Result[tuple[Resolved, CompiledQuery], Refusal | QuestionError]:
        """Resolve and compile ``question`` without touching data."""
        resolved = resolve_question(question, self.pinned, self.settings.limits, self._today())
        return resolved.map(
            lambda r: (r, compile_question(r, self.pinned.catalog, self._dialect(r)))
        )

    async def ask(self, question: Question) -> Outcome | QuestionError:
        """The outcome of ``question``: an answer or a refusal (or a malformed-question error)."""
        planned = self.plan(question)
        if not isinstance(planned, Success):
            failure = planned.failure()
            return failure if isinstance(failure, QuestionError) else Refused(reason=failure)
        resolved, compiled = planned.unwrap()
        source = self.sources[self._source_alias(resolved)]
        raw = await source.run(
            compiled,
            deadline_seconds=self.settings.limits.deadline_seconds,
            max_rows=self.settings.limits.max_rows,
        )
        shaped = raw.bind(lambda rows: shape_rows(compiled, rows))
        if not isinstance(shaped, Success):
            return Refused(reason=shaped.failure())
        executed = [ExecutedAs(source=source.alias, posture=source.posture)]
        provenance = provenance_for(self.pinned, [m.name for m in resolved.metrics], executed)
        return Answer(columns=list(compiled.columns), rows=shaped.unwrap(), provenance=provenance)

    async def check_anchors(self) -> list[AnchorMismatch]:
        """Re-execute every anchor; the list of those that did not reproduce."""
        mismatches: list[AnchorMismatch] = []
        for metric in self.pinned.catalog.metrics:
            found = await self._anchor_value(metric)
            if metric.anchor is not None and found != metric.anchor.value:
                mismatches.append(
                    AnchorMismatch(metric=metric.name, expected=metric.anchor.value, found=found)
                )
        return mismatches

    async def _anchor_value(self, metric: Metric) -> str:
        anchor = metric.anchor
        if anchor is None:
            return ""
        question = Question(
            metrics=[metric.name],
            grain=metric.coarsest_grain,
            range=Range(start=anchor.start, end=anchor.end),
        )
        outcome = await self.ask(question)
        match outcome:
            case Answer(rows=[[_, str() as value]]):
                return value
            case Answer(rows=rows):
                grain = metric.coarsest_grain.value
                return f"{len(rows)} periods at grain {grain} (an anchor covers exactly one)"
            case Refused(reason=reason):
                return f"a refusal ({reason.code.value})"
            case QuestionError() as error:
                return error.sentence()

    async def run_sql(self, statement: str, *, deadline_seconds: float | None = None) -> RawOutcome:
        """The raw tool's outcome for ``statement``: ungoverned rows or a raw refusal, audited.

        Only a service started with ``tools.run_sql.enabled`` has a runner; the transports
        offer the tool only then. The deadline is ``limits.deadline_seconds``, or less.
        """
        if self.raw is None:
            raise RuntimeError("run_sql is not enabled on this service")
        limits = self.settings.limits
        deadline = limits.deadline_seconds
        if deadline_seconds is not None:
            deadline = min(deadline, deadline_seconds)
        return await run_audited(
            self.raw, statement, deadline_seconds=deadline, max_rows=limits.max_rows
        )

    async def close(self) -> None:
        """Close every source, and the raw runner."""
        for source in self.sources.values():
            await source.close()
        if self.raw is not None:
            await self.raw.close()

    def _source_alias(self, resolved: Resolved) -> str:
        model = self.pinned.catalog.model(resolved.metrics[0].model)
        if model is None:  # guarded at startup: every metric's model exists
            raise LookupError("metric model missing")
        return model.source

    def _dialect(self, resolved: Resolved) -> Dialect:
        return dialect_of(self.settings.sources[self._source_alias(resolved)])


def dialect_of(source: SourceSettings) -> Dialect:
    """The SQL dialect a configured source speaks."""
    match source:
        case DuckDBSourceSettings():
            return "duckdb"
        case PostgresSourceSettings():
            return "postgres"
        case SparkSourceSettings():
            return "spark"
        case _:
            assert_never(source)


def unknown_source_aliases(pinned: PinnedDefinitions, settings: Settings) -> list[str]:
    """Model source aliases the settings do not configure."""
    return sorted({m.source for m in pinned.catalog.models if m.source not in settings.sources})
