"""A resolved question's statement: compiled for the dialect of the source holding its model.

Pure: the same resolved question, definitions and source facts give the same statement. The one
composition of resolving and compiling, which every surface uses (``ask_metric`` runs what it
plans, ``compile_question`` shows it), is :class:`sutura.boundary.planning.Planner`.
"""

import datetime
from collections.abc import Mapping
from typing import assert_never

from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.source_facts import SourceFacts
from sutura.core.question.resolve import Resolved
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


def unopened_facts(
    settings: Settings, zone: datetime.tzinfo | None = None
) -> dict[str, SourceFacts]:
    """What is known of each configured source without opening it: its dialect, and ``zone``
    (``catalog.time_zone``, as the boundary reads it) its sessions run in (which columns it
    holds as ``CHAR(n)`` is learnt when startup describes its tables)."""
    return {
        alias: SourceFacts(dialect=dialect_of(s), zone=zone)
        for alias, s in settings.sources.items()
    }


def source_alias(resolved: Resolved, pinned: PinnedDefinitions) -> str:
    """The alias of the source holding the question's model (checked to exist at load)."""
    model = pinned.catalog.model(resolved.metrics[0].model)
    if model is None:
        raise LookupError("the metric's model was checked at load and must exist")
    return model.source


def compile_resolved(
    resolved: Resolved, pinned: PinnedDefinitions, sources: Mapping[str, SourceFacts]
) -> CompiledQuery:
    """``resolved`` compiled against ``pinned`` for the source holding its model, as
    ``sources`` knows it (its dialect, and the columns it holds as ``CHAR(n)``)."""
    return compile_question(resolved, pinned.catalog, sources[source_alias(resolved, pinned)])
