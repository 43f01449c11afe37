"""A question's plan: resolved against the pinned catalog, compiled for its source's dialect.

Pure: the same question, catalog, settings and day give the same statement, so ``sutura
compile`` shows exactly what ``ask_metric`` runs, without touching data.
"""

import datetime
from typing import assert_never

from returns.result import Result

from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.question import Question, QuestionError
from sutura.core.nouns.refusal import Refusal
from sutura.core.question.resolve import Resolved, resolve_question
from sutura.core.settings import (
    DuckDBSourceSettings,
    PostgresSourceSettings,
    Settings,
    SourceSettings,
    SparkSourceSettings,
)
from sutura.core.sql.compile import compile_question
from sutura.core.sql.compiled import CompiledQuery

Plan = tuple[Resolved, CompiledQuery]


def dialect_of(source: SourceSettings) -> Dialect:
    """The SQL dialect a configured source speaks."""
    match source:
        case DuckDBSourceSettings():
            return Dialect.DUCKDB
        case PostgresSourceSettings():
            return Dialect.POSTGRES
        case SparkSourceSettings():
            return Dialect.SPARK
        case _:
            assert_never(source)


def source_alias(resolved: Resolved, pinned: PinnedDefinitions) -> str:
    """The alias of the source holding the question's model (checked to exist at load)."""
    model = pinned.catalog.model(resolved.metrics[0].model)
    if model is None:
        raise LookupError("the metric's model was checked at load and must exist")
    return model.source


def plan_question(
    question: Question, pinned: PinnedDefinitions, settings: Settings, today: datetime.date
) -> Result[Plan, Refusal | QuestionError]:
    """Resolve and compile ``question``, or the refusal or malformation that stops it."""
    return resolve_question(question, pinned, settings.limits, today).map(
        lambda resolved: (
            resolved,
            compile_question(
                resolved,
                pinned.catalog,
                dialect_of(settings.sources[source_alias(resolved, pinned)]),
            ),
        )
    )
