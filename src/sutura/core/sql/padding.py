"""Values of fixed-length text columns without their padding, the same on every engine.

A ``CHAR(n)`` value is blank-padded to ``n`` by PostgreSQL and Spark and never by DuckDB, which
has no such type; and both engines compare it ignoring the padding (``'CHINA' = n_name``). So
the text of a dimension value read from such a column is the value without its trailing
blanks: the same answer on every engine, and a value shown is a value that may be asked back
as a filter. Which columns its engine pads is learnt when startup checks each model against its
source (:class:`sutura.core.nouns.source_facts.SourceFacts`).

A column read as text is unpadded in the statement itself (``RTRIM``), before any expression
computes: the compiler reads a column its source holds as ``CHAR(n)`` as fixed-length text
(:func:`sutura.core.sql.reads.catalog_types`). A column that declares no type is read as it
is, so its values are unpadded in the rows instead, once: which selected columns those are
follows from the question (the dimensions follow the period, when there is a grain, in the
order asked, in every statement the compiler writes). A column the statement trimmed is left
alone, so a value the source holds with trailing blanks of its own keeps them.

>>> unpadded([["2024-01-01", "CHINA   ", "12"], ["2024-01-01", None, "3"]], (1,))
[['2024-01-01', 'CHINA', '12'], ['2024-01-01', None, '3']]
"""

from collections.abc import Iterable

from sutura.core.definitions.model import Catalog, Dimension, Metric
from sutura.core.expression.nodes import Column as ColumnNode
from sutura.core.nouns.source_facts import ModelColumn, SourceFacts
from sutura.core.question.resolve import Resolved, dimension_everywhere
from sutura.core.sql.expression import trimmed
from sutura.core.sql.reads import catalog_types

Row = list[str | None]


def untrimmed_positions(
    resolved: Resolved, catalog: Catalog, source: SourceFacts
) -> tuple[int, ...]:
    """The selected columns of ``resolved``'s statement (for ``source``) whose values come back
    padded: a dimension some metric reads from a column ``source`` holds as ``CHAR(n)``,
    where the statement does not trim it."""
    if not source.fixed_length:
        return ()
    positions = []
    first = len(resolved.keys) - len(resolved.dimensions)  # after the period, if any
    for index, name in enumerate(resolved.dimensions, start=first):
        for metric in resolved.metrics:
            found = dimension_everywhere((metric,), name)
            if isinstance(found, tuple) and left_padded(metric, found[0], catalog, source):
                positions.append(index)
                break
    return tuple(positions)


def left_padded(
    metric: Metric, dimension: Dimension, catalog: Catalog, source: SourceFacts
) -> bool:
    """Whether the values of ``metric``'s ``dimension`` come back padded from its statement: it
    reads a column ``source`` holds as ``CHAR(n)``, and the statement reads it as it is (the
    column declares no type, so the compiler does not read it as text and trim it)."""
    origin = dimension_origin(metric, dimension, catalog)
    if origin is None or dimension.column is None or origin not in source.fixed_length:
        return False
    types = catalog_types(catalog, metric.model, source)
    kind = types(ColumnNode(name=dimension.column, via=dimension.via)).value_or(None)
    return not trimmed(kind, source.dialect)


def dimension_origin(metric: Metric, dimension: Dimension, catalog: Catalog) -> ModelColumn | None:
    """The model and column a metric's dimension reads, at the end of its ``via`` path (none for
    an expression: its own type says what it is)."""
    if dimension.column is None:
        return None
    model = metric.model
    if dimension.via:
        relationship = catalog.relationship(dimension.via[-1])
        model = model if relationship is None else relationship.target_model
    return ModelColumn(model=model, column=dimension.column)


def unpadded(rows: list[Row], positions: Iterable[int]) -> list[Row]:
    """``rows`` with the trailing blanks of the cells at ``positions`` removed (in place)."""
    at = tuple(positions)
    if not at:
        return rows
    for row in rows:
        for index in at:
            cell = row[index]
            if cell is not None:
                row[index] = cell.rstrip(" ")
    return rows
