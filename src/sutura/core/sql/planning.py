"""A resolved question's statement: compiled for the dialect of the source holding its model.

Pure: the same resolved question, definitions and settings give the same statement. The one
composition of resolving and compiling, which every surface uses (``ask_metric`` runs what it
plans, ``compile_question`` shows it), is :class:`sutura.boundary.planning.Planner`.
"""

from typing import assert_never

from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.dialect import Dialect
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
from sutura.core.sql.padding import Padded

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


def compile_resolved(
    resolved: Resolved, pinned: PinnedDefinitions, settings: Settings, padded: Padded
) -> CompiledQuery:
    """``resolved`` compiled against ``pinned`` for its source's dialect, reading the columns
    of ``padded`` (``CHAR(n)`` in their source) without their padding."""
    dialect = dialect_of(settings.sources[source_alias(resolved, pinned)])
    return compile_question(resolved, pinned.catalog, dialect, padded)
