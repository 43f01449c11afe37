"""What a statement reads besides its dimensions' columns: the types of a model's columns, the
``via`` chains of a metric's time column, measure and required filters, and a caller's filter
value bound as its dimension's type."""

from collections.abc import Iterator

from sutura.core.catalog.checks.expressions import column_types
from sutura.core.catalog.checks.paths import computed_columns
from sutura.core.definitions.model import Catalog, Dimension, Metric
from sutura.core.expression.constants import BoundValue, bound_value, kind_for
from sutura.core.expression.nodes import Constant
from sutura.core.expression.problem import ColumnTypes


def catalog_types(catalog: Catalog, model: str) -> ColumnTypes:
    """The declared type of a column node read from the model ``model`` of ``catalog``."""
    models = {m.name: m for m in catalog.models}
    relationships = {r.name: r for r in catalog.relationships}
    return column_types(models, relationships, model)


def metric_chains(metric: Metric) -> Iterator[tuple[str, ...]]:
    """The non-empty ``via`` chains of the metric's time column, measure and required filters,
    in the order they are written (its dimensions' chains are joined when they are asked)."""
    if metric.time_via:
        yield metric.time_via
    for column in computed_columns(metric):
        if column.via:
            yield column.via


def filter_value(dimension: Dimension, value: str) -> BoundValue:
    """A caller's filter value as bound: text for a column, else the dimension's own type (a
    listed value is checked to be one when the catalog is loaded)."""
    if dimension.type is None:
        return value
    return bound_value(Constant(kind=kind_for(dimension.type), text=value))
