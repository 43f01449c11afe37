"""Values of fixed-length text columns without their padding, the same on every engine.

A ``CHAR(n)`` value is blank-padded to ``n`` by PostgreSQL and Spark and never by DuckDB, which
has no such type; and both engines compare it ignoring the padding (``'CHINA' = n_name``). So
the text of a dimension value read from such a column is the value without its trailing
blanks: the same answer on every engine, and a value shown is a value that may be asked back
as a filter. Which columns pads its engine is learnt when startup checks each model against its
source; which selected columns read such a column, from the question: the dimensions follow
the period (when there is a grain), in the order asked, in every statement the compiler writes.
A column an expression reads is unpadded in the statement itself (``RTRIM``), before the
expression computes: the compiler reads these same pairs as fixed-length columns
(:func:`sutura.core.sql.reads.catalog_types`).

>>> unpadded([["2024-01-01", "CHINA   ", "12"], ["2024-01-01", None, "3"]], (1,))
[['2024-01-01', 'CHINA', '12'], ['2024-01-01', None, '3']]
"""

from collections.abc import Iterable

from sutura.core.definitions.model import Catalog, Dimension, Metric
from sutura.core.question.resolve import Resolved, dimension_everywhere

Padded = frozenset[tuple[str, str]]
"""The (model, column) pairs whose source type is fixed-length text."""

Row = list[str | None]


def padded_positions(resolved: Resolved, catalog: Catalog, padded: Padded) -> tuple[int, ...]:
    """The selected columns of ``resolved``'s statement that read a padded column."""
    if not padded:
        return ()
    positions = []
    first = len(resolved.keys) - len(resolved.dimensions)  # after the period, if any
    for index, name in enumerate(resolved.dimensions, start=first):
        for metric in resolved.metrics:
            found = dimension_everywhere((metric,), name)
            origin = (
                dimension_origin(metric, found[0], catalog) if isinstance(found, tuple) else None
            )
            if origin is not None and origin in padded:
                positions.append(index)
                break
    return tuple(positions)


def dimension_origin(
    metric: Metric, dimension: Dimension, catalog: Catalog
) -> tuple[str, str] | None:
    """The model and column a metric's dimension reads, at the end of its ``via`` path (none for
    an expression: its own type says what it is)."""
    if dimension.column is None:
        return None
    model = metric.model
    if dimension.via:
        relationship = catalog.relationship(dimension.via[-1])
        model = model if relationship is None else relationship.target_model
    return model, dimension.column


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
