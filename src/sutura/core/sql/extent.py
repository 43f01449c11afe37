"""The statement that finds where a metric's data is: the first and last day of its rows.

One statement per model, time column and required filters (metrics that share them share it):
``MIN`` and ``MAX`` of the day each row falls on, in the session's time zone as every period
is, over the rows the metric counts. Its two cells are dates, or NULL when it counts no row.

>>> from sutura.core.definitions.model import Catalog, Model, Column
>>> from sutura.core.definitions.model import Metric, SimpleMeasure, AggregateTerm, Aggregate
>>> from sutura.core.nouns.grain import Grain
>>> orders = Model(name="orders", source="main", table="orders",
...     columns=(Column(name="ordered_on"), Column(name="amount")))
>>> revenue = Metric(name="revenue", model="orders", time_column="ordered_on",
...     grains=(Grain.DAY,), measure=SimpleMeasure(
...         term=AggregateTerm(aggregate=Aggregate.SUM, column="amount")))
>>> catalog = Catalog(models=(orders,), relationships=(), metrics=(revenue,))
>>> [(names, query.source) for names, query in extent_statements(catalog, Dialect.DUCKDB)]
[(('revenue',), 'main')]
"""

from sqlglot import exp

from sutura.core.definitions.model import Catalog, Metric, RequiredFilter
from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.grain import Grain
from sutura.core.sql.compile import render_statement
from sutura.core.sql.compiled import CompiledQuery, Passthrough
from sutura.core.sql.expression import ExpressionSql
from sutura.core.sql.parts import Binder, Joins, base_table, join_clause, period_start, require
from sutura.core.sql.reads import catalog_types, inner_chains, metric_chains

ExtentKey = tuple[str, str, tuple[str, ...], tuple[RequiredFilter, ...]]
"""What an extent depends on: the model, the time column (and the chain that reaches it) and
the required filters."""

_COLUMNS = ("first_day", "last_day")


def extent_statements(
    catalog: Catalog, dialect: Dialect
) -> list[tuple[tuple[str, ...], CompiledQuery]]:
    """One statement per distinct extent, with the names of the metrics it belongs to."""
    shared: dict[ExtentKey, list[Metric]] = {}
    for metric in catalog.metrics:
        key = (metric.model, metric.time_column, metric.time_via, metric.required_filters)
        shared.setdefault(key, []).append(metric)
    return [
        (tuple(m.name for m in metrics), _statement(metrics[0], catalog, dialect))
        for metrics in shared.values()
    ]


def _statement(metric: Metric, catalog: Catalog, dialect: Dialect) -> CompiledQuery:
    model = require(catalog.model(metric.model), metric.model)
    binder = Binder()
    # The time column and the required filters may be reached along relationships: joined as
    # a question's statement joins them (INNER where WHERE drops the row anyway).
    joins = Joins(catalog)
    inner = set(inner_chains((metric,)))
    for chain in metric_chains(metric):
        joins.add(chain, inner=chain in inner)
    sql = ExpressionSql(binder, joins.alias, dialect, catalog_types(catalog, model.name))
    day = period_start(Grain.DAY, metric.time_column, joins.alias(metric.time_via))
    tree = exp.select(
        exp.Min(this=day).as_(_COLUMNS[0], quoted=True),
        exp.Max(this=day.copy()).as_(_COLUMNS[1], quoted=True),
    ).from_(base_table(model))
    if metric.required_filters:
        tree = tree.where(sql.required(metric.required_filters))
    for join in joins.all():
        table, on, kind = join_clause(join)
        tree = tree.join(table, on=on, join_type=kind, copy=False)
    return CompiledQuery(
        sql=render_statement(tree, dialect),
        params=binder.values(len(list(tree.find_all(exp.Placeholder)))),
        columns=_COLUMNS,
        plan=(f"extent: the first and last day of {metric.model}'s rows",),
        outputs=(Passthrough(index=0), Passthrough(index=1)),
        selected_width=2,
        source=model.source,
        dialect=dialect,
    )
