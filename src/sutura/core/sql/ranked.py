"""The statement of a question with a ``median`` or ``percentile``: rows ranked first, then grouped.

A continuous percentile is interpolated between the two values nearest its position, so each
group needs its values in order. The inner statement reads the rows (the same tables, joins and
WHERE as a grouped statement) and selects, per row: its period, its dimension values, and the
value each term aggregates (``CASE WHEN <filters> THEN <of> END``); for a percentile also the
value's rank within its group and the group's count of values (window functions). The outer
statement groups those rows: every metric is its own terms over the inner columns, a percentile
picks the two nearest values by rank and interpolates exactly
(:func:`~sutura.core.sql.percentile.percentile_sql`).

Every engine computes the same: positions and the fraction between them are integer arithmetic,
the interpolation is decimal arithmetic at scale ``s + k`` (the value's scale and the
fraction's digits), or floating point for a float column, in one order.
"""

from typing import assert_never

import msgspec
from returns.result import Success
from sqlglot import exp

from sutura.core.definitions.model import (
    Aggregate,
    AggregateTerm,
    Catalog,
    CountIfTerm,
    Dimension,
    ExpressionTerm,
    Measure,
    Metric,
    Model,
    RatioMeasure,
    RequiredFilter,
    SimpleMeasure,
    Term,
)
from sutura.core.expression.nodes import Column
from sutura.core.expression.types import Family, SqlType
from sutura.core.nouns.source_facts import SourceFacts
from sutura.core.question.resolve import PERIOD, Resolved
from sutura.core.sql.compiled import Output, Passthrough
from sutura.core.sql.expression import ExpressionSql, model_sql
from sutura.core.sql.measures import metric_parts, order_key, some_row
from sutura.core.sql.ordering import (
    RANK,
    descending,
    kept_per_period,
    order_by,
    ordered,
    output_of,
)
from sutura.core.sql.parts import Binder, Joins, base_table, column, join_clause, require
from sutura.core.sql.reading import asked_dimensions, joins_for, periods_of, where_of
from sutura.core.sql.reads import (
    none_held,
)

INNER = "w"
KEPT = "kept"


def ranks(metrics: tuple[Metric, ...]) -> bool:
    """Whether any of ``metrics`` has a median or a percentile (so its rows are ranked)."""
    return any(_percentile(term) for metric in metrics for term in _terms(metric.measure))


def _terms(measure: Measure) -> tuple[Term, ...]:
    match measure:
        case SimpleMeasure():
            return (measure.term,)
        case RatioMeasure():
            return (measure.numerator, measure.denominator)
        case _:
            assert_never(measure)


def _percentile(term: Term) -> bool:
    match term:
        case AggregateTerm() | CountIfTerm():
            return False
        case ExpressionTerm():
            return percentile_aggregate(term.aggregate)
        case _:
            assert_never(term)


def percentile_aggregate(aggregate: Aggregate) -> bool:
    """Whether ``aggregate`` interpolates between ranked values."""
    match aggregate:
        case Aggregate.MEDIAN | Aggregate.PERCENTILE:
            return True
        case (
            Aggregate.SUM
            | Aggregate.COUNT
            | Aggregate.COUNT_DISTINCT
            | Aggregate.MIN
            | Aggregate.MAX
            | Aggregate.AVG
        ):
            return False
        case _:
            assert_never(aggregate)


class _Input(msgspec.Struct, frozen=True):
    """One term's value in the inner statement: its column, what it reads, whether it ranks."""

    name: str
    term: Term
    metric: Metric
    ranked: bool


def _inputs(metrics: tuple[Metric, ...]) -> list[_Input]:
    return [
        _Input(name=f"i{m}.{t}", term=term, metric=metric, ranked=_percentile(term))
        for m, metric in enumerate(metrics)
        for t, term in enumerate(_terms(metric.measure))
    ]


def _outer_term(term: Term, name: str) -> ExpressionTerm:
    """``term`` over its inner column (its filters and ``where`` were applied inside)."""
    of = Column(name=name)
    match term:
        case AggregateTerm():
            return ExpressionTerm(aggregate=term.aggregate, of=of)
        case CountIfTerm():
            return ExpressionTerm(aggregate=Aggregate.COUNT, of=of)
        case ExpressionTerm():
            return ExpressionTerm(aggregate=term.aggregate, of=of, fraction=term.fraction)
        case _:
            assert_never(term)


def _outer_metric(metric: Metric, names: list[str]) -> Metric:
    measure = metric.measure
    match measure:
        case SimpleMeasure():
            outer: Measure = SimpleMeasure(term=_outer_term(measure.term, names[0]))
        case RatioMeasure():
            outer = RatioMeasure(
                numerator=_outer_term(measure.numerator, names[0]),
                denominator=_outer_term(measure.denominator, names[1]),
                zero_denominator=measure.zero_denominator,
            )
        case _:
            assert_never(measure)
    return msgspec.structs.replace(metric, measure=outer, required_filters=())


def ranked_statement(
    resolved: Resolved, catalog: Catalog, source: SourceFacts, binder: Binder
) -> tuple[exp.Select, tuple[Output, ...], Model, Joins, bool]:
    """The statement of metrics of one model and time column, one of them a percentile.

    Built in textual order, so the order of creation is the order of the bound values: the
    outer SELECT list, the inner statement, then the outer GROUP BY, HAVING, ORDER BY, LIMIT.
    """
    metrics = resolved.metrics
    model = require(catalog.model(metrics[0].model), metrics[0].model)
    dimensions = asked_dimensions(resolved, metrics)
    joins = joins_for(resolved, dimensions, catalog)
    dialect = source.dialect
    inner = model_sql(binder, joins.alias, catalog, model.name, source)
    shared = all(set(m.required_filters) == set(metrics[0].required_filters) for m in metrics)
    inputs = _inputs(metrics)
    types = {i.name: _input_type(i.term, inner) for i in inputs}
    # The outer statement reads the inner one's columns, trimmed there already.
    outer = ExpressionSql(
        binder,
        lambda _via: INNER,
        dialect,
        lambda read: Success(types.get(read.name)),
        none_held,
    )
    outer_metrics = tuple(
        _outer_metric(metric, [i.name for i in inputs if i.metric == metric]) for metric in metrics
    )
    items: list[exp.Expr] = [
        _inner(name).as_(name, quoted=True, copy=False) for name in resolved.keys
    ]
    outputs: list[Output] = [Passthrough(index=i) for i in range(len(items))]
    for metric in outer_metrics:
        parts = metric_parts(metric, inline=False, sql=outer)
        outputs.append(output_of(parts, start=len(items)))
        items.extend(value.as_(alias, quoted=True, copy=False) for alias, value in parts.columns)
    tree = exp.select(*items)
    top = None if resolved.derives else resolved.top
    if top is not None and top.per_period:
        key = order_key(
            outer_metrics[resolved.metric_names.index(top.by)],
            inline=False,
            sql=outer,
            ordinal=0,
            average_as_quotient=True,
        )
        if isinstance(key, exp.Literal):
            index = resolved.metric_names.index(top.by)
            key = metric_parts(outer_metrics[index], inline=False, sql=outer).columns[0][1]
        tree = tree.select(_rank(resolved, key, descending(top.direction)), copy=False)
    rows = _rows(resolved, model, dimensions, joins, inputs, shared, inner)
    tree = tree.from_(rows.subquery(exp.to_identifier(INNER, quoted=True), copy=False), copy=False)
    if resolved.keys:
        tree = tree.group_by(*(_inner(name) for name in resolved.keys), copy=False)
    if not shared and all(m.required_filters for m in metrics):
        kept = exp.GT(this=exp.Count(this=_inner(KEPT)), expression=exp.Literal.number(0))
        tree = tree.having(kept, copy=False)
    elif not resolved.keys:
        tree = tree.having(some_row(), copy=False)
    if top is not None and top.per_period:
        return kept_per_period(tree, top.n, binder), tuple(outputs), model, joins, shared
    order = order_by(resolved, top, outer_metrics, True, outer, tuple(outputs), dialect)
    tree = ordered(tree, order)
    if top is not None:
        tree = tree.limit(binder.bind(top.n), copy=False)
    return tree, tuple(outputs), model, joins, shared


def _inner(name: str) -> exp.Column:
    return exp.column(name, table=INNER, quoted=True)


def _rank(resolved: Resolved, key: exp.Expr, desc: bool) -> exp.Expr:
    """``ROW_NUMBER()`` within the row's period, by ``top``'s key then the dimensions."""
    order = exp.Order(
        expressions=[
            exp.Ordered(this=key, desc=desc, nulls_first=False),
            *(exp.Ordered(this=_inner(n), nulls_first=False) for n in resolved.dimensions),
        ]
    )
    window = exp.Window(this=exp.RowNumber(), partition_by=[_inner(PERIOD)], order=order)
    return window.as_(RANK, quoted=True, copy=False)


def _input_type(term: Term, sql: ExpressionSql) -> SqlType | None:
    """The type of a term's inner value (None: a column declared without a type)."""
    match term:
        case AggregateTerm():
            return sql.column_type(Column(name=term.column))
        case CountIfTerm():
            return SqlType(family=Family.INTEGER)
        case ExpressionTerm():
            return SqlType(family=Family.INTEGER) if term.of is None else sql.type_of(term.of)
        case _:
            assert_never(term)


def _input_value(term: Term, guard: list[exp.Expr], sql: ExpressionSql) -> exp.Expr:
    """The value a term aggregates, on the rows its filters and ``where`` admit."""
    conditions = list(guard)
    match term:
        case AggregateTerm():
            value: exp.Expr = column(term.column)
        case CountIfTerm():
            conditions.append(column(term.column))
            value = exp.Literal.number(1)
        case ExpressionTerm():
            if term.where is not None:
                conditions.append(sql.condition(term.where))
            value = exp.Literal.number(1) if term.of is None else sql.value(term.of)
        case _:
            assert_never(term)
    return (
        exp.Case().when(exp.and_(*conditions, copy=False), value, copy=False)
        if conditions
        else value
    )


def _rows(
    resolved: Resolved,
    model: Model,
    dimensions: dict[str, Dimension],
    joins: Joins,
    inputs: list[_Input],
    shared: bool,
    sql: ExpressionSql,
) -> exp.Select:
    """The inner statement: each row's period, dimension values, term values and ranks."""
    items: list[exp.Expr] = [
        p.as_(PERIOD, quoted=True, copy=False) for p in periods_of(resolved, joins)
    ]
    items.extend(
        sql.keyed(dimensions[n]).as_(n, quoted=True, copy=False) for n in resolved.dimensions
    )
    for item in inputs:
        filters = item.metric.required_filters

        def guard(filters: tuple[RequiredFilter, ...] = filters) -> list[exp.Expr]:
            return [] if shared or not filters else [sql.required(filters)]

        items.append(_input_value(item.term, guard(), sql).as_(item.name, quoted=True, copy=False))
        if item.ranked:
            rank = exp.Window(
                this=exp.RowNumber(),
                partition_by=_group(resolved, dimensions, joins, sql),
                order=exp.Order(
                    expressions=[
                        exp.Ordered(this=_input_value(item.term, guard(), sql), nulls_first=False)
                    ]
                ),
            )
            items.append(rank.as_(f"{item.name}.rank", quoted=True, copy=False))
            count = exp.Window(
                this=exp.Count(this=_input_value(item.term, guard(), sql)),
                partition_by=_group(resolved, dimensions, joins, sql),
            )
            items.append(count.as_(f"{item.name}.count", quoted=True, copy=False))
    sets = {frozenset(m.required_filters): m.required_filters for m in resolved.metrics}
    if not shared and all(sets.values()):
        matched = exp.or_(*(sql.required(f) for f in sets.values()), copy=False)
        items.append(
            exp.Case()
            .when(matched, exp.Literal.number(1), copy=False)
            .as_(KEPT, quoted=True, copy=False)
        )
    tree = exp.select(*items).from_(base_table(model), copy=False)
    tree = tree.where(
        where_of(resolved, resolved.metrics[0], dimensions, joins, shared, sql), copy=False
    )
    for join in joins.all():
        table, on, kind = join_clause(join)
        tree = tree.join(table, on=on, join_type=kind, copy=False)
    return tree


def _group(
    resolved: Resolved, dimensions: dict[str, Dimension], joins: Joins, sql: ExpressionSql
) -> list[exp.Expr]:
    """A row's group: its period and dimension values (built afresh, with fresh binds)."""
    return [
        *periods_of(resolved, joins),
        *(sql.value(dimensions[n].value) for n in resolved.dimensions),
    ]
