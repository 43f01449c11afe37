"""What a statement reads, shared by the grouped statement and the one that ranks rows first:
the dimensions asked, the joins they and the metrics need, each row's period, and WHERE (the
half-open range, the shared required filters, the caller's filters)."""

from typing import assert_never

from sqlglot import exp

from sutura.core.definitions.model import Catalog, Dimension, Metric
from sutura.core.expression.nodes import expression_columns
from sutura.core.nouns.refusal import Refusal
from sutura.core.question.filters import FilterOp, ResolvedFilter, keeps_null
from sutura.core.question.resolve import Resolved, dimension_everywhere
from sutura.core.sql.expression import ExpressionSql
from sutura.core.sql.parts import Joins, column, period_start
from sutura.core.sql.reads import filter_constant, inner_chains, metric_chains, strict_chains


def asked_dimensions(resolved: Resolved, metrics: tuple[Metric, ...]) -> dict[str, Dimension]:
    """Every dimension grouped by or filtered on, as all requested metrics define it."""
    found: dict[str, Dimension] = {}
    for name in (*resolved.dimensions, *(f.dimension for f in resolved.filters)):
        defined = dimension_everywhere(metrics, name)
        if isinstance(defined, Refusal):
            raise LookupError(f"the dimension {name!r} was not resolved against this catalog")
        found[name] = defined[0]
    return found


def joins_for(resolved: Resolved, dimensions: dict[str, Dimension], catalog: Catalog) -> Joins:
    """The joins the dimensions need (LEFT, or INNER along a path where a missing related row
    makes a filtered dimension NULL, which its filter rejects), then those the metrics' time
    column, measures and required filters need (LEFT, or INNER where WHERE would drop a row
    without the related one anyway: :func:`inner_chains`).

    A dimension that chooses past a NULL (``coalesce``, ``case``) stays LEFT: a row without the
    related one has a value there, which a filter may keep; so does ``is_null``, which keeps
    the rows without one."""
    joins = Joins(catalog)
    filtered = {f.dimension for f in resolved.filters if not keeps_null(f.op)}
    for name, dimension in dimensions.items():
        strict = strict_chains(dimension.value) if name in filtered else frozenset()
        for reads in expression_columns(dimension.value):
            joins.add(reads.via, inner=reads.via in strict)
    inner = set(inner_chains(resolved.metrics))
    for metric in resolved.metrics:
        for chain in metric_chains(metric):
            joins.add(chain, inner=chain in inner)
    return joins


def periods_of(resolved: Resolved, joins: Joins) -> list[exp.Expr]:
    """The first day of a row's period, from the time column of the question's metrics; none
    without a grain (a row is a group over the whole range)."""
    first = resolved.metrics[0]
    if resolved.grain is None:
        return []
    return [period_start(resolved.grain, first.time_column, joins.alias(first.time_via))]


def where_of(
    resolved: Resolved,
    metric: Metric,
    dimensions: dict[str, Dimension],
    joins: Joins,
    shared: bool,
    sql: ExpressionSql,
) -> exp.Expr:
    """The half-open range (or ranges), the shared required filters, then the caller's
    filters. A range of days over an instant starts each day at its first instant in the
    session's zone (:meth:`ExpressionSql.day_start`)."""
    time = column(metric.time_column, joins.alias(metric.time_via))
    ranges: list[list[exp.Expr]] = [
        [time >= sql.day_start(start, metric.time), time < sql.day_start(end, metric.time)]
        for start, end in resolved.read_ranges
    ]
    conditions: list[exp.Expr] = (
        ranges[0]
        if len(ranges) == 1
        else [exp.or_(*(exp.paren(exp.and_(*r, copy=False), copy=False) for r in ranges))]
    )
    if shared and metric.required_filters:
        conditions.append(sql.required(metric.required_filters))
    conditions.extend(
        _filter_sql(item, dimensions[item.dimension], sql) for item in resolved.filters
    )
    return exp.and_(*conditions, copy=False)


def _filter_sql(item: ResolvedFilter, dimension: Dimension, sql: ExpressionSql) -> exp.Expr:
    """A caller's filter: every value bound as the dimension's type; NULL matches no value and
    no range (``is_null`` alone selects it)."""
    constants = [filter_constant(dimension, v) for v in item.values]
    target, *values = sql.alike(dimension.value, *constants)
    match item.op:
        case FilterOp.EQ:
            return target.eq(values[0])
        case FilterOp.IN:
            return target.isin(*values)
        case FilterOp.NOT_IN:
            return exp.not_(target.isin(*values))
        case FilterOp.LT | FilterOp.LE | FilterOp.GT | FilterOp.GE | FilterOp.BETWEEN:
            return _ordered_sql(item.op, target, values)
        case FilterOp.IS_NULL:
            return exp.Is(this=target, expression=exp.null())
        case FilterOp.IS_NOT_NULL:
            return exp.not_(exp.Is(this=target, expression=exp.null()))
        case _:
            assert_never(item.op)


def _ordered_sql(op: FilterOp, target: exp.Expr, values: list[exp.Expr]) -> exp.Expr:
    """An ordered comparison: false for a NULL value, as SQL has it."""
    match op:
        case FilterOp.LT:
            return exp.LT(this=target, expression=values[0])
        case FilterOp.LE:
            return exp.LTE(this=target, expression=values[0])
        case FilterOp.GT:
            return exp.GT(this=target, expression=values[0])
        case FilterOp.GE:
            return exp.GTE(this=target, expression=values[0])
        case FilterOp.BETWEEN:
            return exp.Between(this=target, low=values[0], high=values[1])
        case FilterOp.EQ | FilterOp.IN | FilterOp.NOT_IN | FilterOp.IS_NULL | FilterOp.IS_NOT_NULL:
            raise AssertionError("not an ordered comparison")
        case _:
            assert_never(op)
