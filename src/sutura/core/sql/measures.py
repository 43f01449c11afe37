"""The SQL of measures: each metric's selected columns, what ``top`` orders it by, and which
groups a question with several metrics keeps.

A metric's required filters go in WHERE when every requested metric shares them; otherwise
each metric's filters go inside its own aggregates (``CASE WHEN <filters> THEN ... END``), and
a group is kept only where at least one metric's filters match a row of it (see
:func:`groups_kept`). Every filter value is a bind parameter, bound again at each use.
"""

from collections.abc import Callable
from typing import NamedTuple, assert_never

from sqlglot import exp

from sutura.core.definitions.model import (
    Aggregate,
    AggregateTerm,
    CountIfTerm,
    ExpressionTerm,
    Metric,
    RatioMeasure,
    RequiredFilter,
    SimpleMeasure,
    Term,
    ZeroDenominator,
)
from sutura.core.expression.nodes import Column
from sutura.core.sql.expression import ExpressionSql
from sutura.core.sql.parts import column, sql_type
from sutura.core.sql.percentile import percentile_sql

TermAt = tuple[int, int | None]
"""Offsets of a term's exact parts among its metric's columns: a value and an optional count."""

Guard = Callable[[], exp.Expr] | None
"""Builds a fresh copy of a metric's required filters (fresh binds), or None."""


class Parts(NamedTuple):
    """The selected columns of one metric and, for avg and ratios, how to divide them."""

    columns: tuple[tuple[str, exp.Expr], ...]
    quotient: tuple[TermAt, TermAt | None, ZeroDenominator] | None


def _guarded(value: exp.Expr, guard: Guard) -> exp.Expr:
    """``value``, or ``CASE WHEN <required filters> THEN value END``."""
    return value if guard is None else exp.Case().when(guard(), value, copy=False)


def _term_columns(term: Term, guard: Guard, sql: ExpressionSql) -> list[exp.Expr]:
    """The exact aggregates of a term: one, or a sum and a count for ``avg``."""
    match term:
        case CountIfTerm():
            return [_count_if(term, guard)]
        case AggregateTerm(aggregate=Aggregate.AVG):
            return [
                sum_of(term, _guarded(column(term.column), guard), sql),
                exp.Count(this=_guarded(column(term.column), guard)),
            ]
        case AggregateTerm():
            return [_aggregate(term, _guarded(column(term.column), guard), sql)]
        case ExpressionTerm(aggregate=Aggregate.AVG):
            return [
                sum_of(term, _term_input(term, guard, sql), sql),
                exp.Count(this=_term_input(term, guard, sql)),
            ]
        case ExpressionTerm(aggregate=Aggregate.MEDIAN | Aggregate.PERCENTILE):
            return [percentile_sql(term, sql)]
        case ExpressionTerm():
            return [_aggregate(term, _term_input(term, guard, sql), sql)]
        case _:
            assert_never(term)


def _term_input(term: ExpressionTerm, guard: Guard, sql: ExpressionSql) -> exp.Expr:
    """What a term aggregates: its ``of`` (or a 1 per row for a count of rows), kept on the
    rows its required filters and its ``where`` admit (``CASE WHEN … THEN … END``).

    Built in the order it is written, so its constants are bound in that order.
    """
    conditions = [] if guard is None else [guard()]
    if term.where is not None:
        conditions.append(sql.condition(term.where))
    value = exp.Literal.number(1) if term.of is None else sql.value(term.of)
    if not conditions:
        return exp.Star() if term.of is None else value
    return exp.Case().when(exp.and_(*conditions, copy=False), value, copy=False)


def _count_if(term: CountIfTerm, guard: Guard) -> exp.Expr:
    """``COUNT(CASE WHEN [<required filters> AND] <column> THEN 1 END)``."""
    condition: exp.Expr = column(term.column)
    if guard is not None:
        condition = exp.and_(guard(), condition, copy=False)
    return exp.Count(this=exp.Case().when(condition, exp.Literal.number(1), copy=False))


def sum_of(term: Term, value: exp.Expr, sql: ExpressionSql) -> exp.Expr:
    """``SUM(value)``, ``value`` being what ``term`` reads in a row (or a column holding it):
    an integer is added up in 38 digits where the engine's own sum of it is 64-bit
    (:meth:`~sutura.core.sql.expression.ExpressionSql.summed`)."""
    match term:
        case AggregateTerm():
            return exp.Sum(this=sql.summed(value, Column(name=term.column)))
        case ExpressionTerm():
            return exp.Sum(this=value if term.of is None else sql.summed(value, term.of))
        case CountIfTerm():
            return exp.Sum(this=value)
        case _:
            assert_never(term)


def _aggregate(
    term: AggregateTerm | ExpressionTerm, value: exp.Expr, sql: ExpressionSql
) -> exp.Expr:
    """The term's aggregate over ``value``; ``avg`` is the engine's own (for ordering only)."""
    match term.aggregate:
        case Aggregate.SUM:
            return sum_of(term, value, sql)
        case Aggregate.COUNT:
            return exp.Count(this=value)
        case Aggregate.COUNT_DISTINCT:
            return exp.Count(this=exp.Distinct(expressions=[value]))
        case Aggregate.MIN:
            return exp.Min(this=value)
        case Aggregate.MAX:
            return exp.Max(this=value)
        case Aggregate.AVG:
            return exp.Avg(this=value)
        case Aggregate.MEDIAN | Aggregate.PERCENTILE:
            raise AssertionError("a percentile is computed over ranked rows (percentile.py)")
        case _:
            assert_never(term.aggregate)


def _guard(metric: Metric, inline: bool, sql: ExpressionSql) -> Guard:
    """A builder of the metric's required filters when they go inside its aggregates."""
    if not inline or not metric.required_filters:
        return None
    return lambda: sql.required(metric.required_filters)


def metric_parts(metric: Metric, *, inline: bool, sql: ExpressionSql) -> Parts:
    """The selected columns of ``metric``, with its required filters inside them when ``inline``."""
    guard = _guard(metric, inline, sql)
    name = metric.name
    match metric.measure:
        case SimpleMeasure(term=term):
            values = _term_columns(term, guard, sql)
            if len(values) == 1:
                return Parts(((name, values[0]),), None)
            aliases = (f"{name}.sum", f"{name}.count")
            return Parts(tuple(zip(aliases, values, strict=True)), ((0, 1), None, _NULL_IF_EMPTY))
        case RatioMeasure(numerator=top, denominator=bottom, zero_denominator=zero):
            upper = _named(f"{name}.numerator", _term_columns(top, guard, sql))
            lower = _named(f"{name}.denominator", _term_columns(bottom, guard, sql))
            return Parts((*upper, *lower), (_at(upper, 0), _at(lower, len(upper)), zero))
        case _:
            assert_never(metric.measure)


_NULL_IF_EMPTY = ZeroDenominator.YIELDS_NULL


def _named(alias: str, values: list[exp.Expr]) -> list[tuple[str, exp.Expr]]:
    """Alias one exact value as ``alias``, or a sum and count as ``alias.sum``/``alias.count``."""
    if len(values) == 1:
        return [(alias, values[0])]
    return [(f"{alias}.sum", values[0]), (f"{alias}.count", values[1])]


def _at(columns: list[tuple[str, exp.Expr]], start: int) -> TermAt:
    """Offsets of one term's parts that begin at ``start``."""
    return (start, start + 1 if len(columns) == 2 else None)


def order_key(
    metric: Metric,
    *,
    inline: bool,
    sql: ExpressionSql,
    ordinal: int,
    average_as_quotient: bool = False,
) -> exp.Expr:
    """What ``top`` orders a metric by: its column ordinal, or its quotient as a double.

    An average is the engine's AVG, or with ``average_as_quotient`` its exact sum divided by
    its count as doubles: engines whose AVG of a decimal is a decimal rounded to a few places
    (Spark) would otherwise tie where DuckDB does not.
    """
    guard = _guard(metric, inline, sql)
    match metric.measure:
        case SimpleMeasure(term=AggregateTerm(aggregate=Aggregate.AVG) as term):
            if average_as_quotient:
                total = sum_of(term, _guarded(column(term.column), guard), sql)
                count = exp.Count(this=_guarded(column(term.column), guard))
                return _double_quotient(total, count)
            return exp.Avg(this=_guarded(column(term.column), guard))
        case SimpleMeasure(term=ExpressionTerm(aggregate=Aggregate.AVG) as term):
            if average_as_quotient:
                total = sum_of(term, _term_input(term, guard, sql), sql)
                count = exp.Count(this=_term_input(term, guard, sql))
                return _double_quotient(total, count)
            return exp.Avg(this=_term_input(term, guard, sql))
        case SimpleMeasure():
            return exp.Literal.number(ordinal)
        case RatioMeasure(numerator=top, denominator=bottom):
            return _double_quotient(_natural(top, guard, sql), _natural(bottom, guard, sql))
        case _:
            assert_never(metric.measure)


def _double_quotient(upper: exp.Expr, lower: exp.Expr) -> exp.Expr:
    """``CAST(upper AS DOUBLE) / NULLIF(CAST(lower AS DOUBLE), 0)``: NULL where lower is 0."""
    return exp.Div(
        this=_as_double(upper), expression=exp.Nullif(this=_as_double(lower), expression=_zero())
    )


def _natural(term: Term, guard: Guard, sql: ExpressionSql) -> exp.Expr:
    """The term as one SQL aggregate (``avg`` as AVG), for ordering."""
    match term:
        case CountIfTerm():
            return _count_if(term, guard)
        case AggregateTerm():
            return _aggregate(term, _guarded(column(term.column), guard), sql)
        case ExpressionTerm(aggregate=Aggregate.MEDIAN | Aggregate.PERCENTILE):
            return percentile_sql(term, sql)
        case ExpressionTerm():
            return _aggregate(term, _term_input(term, guard, sql), sql)
        case _:
            assert_never(term)


def _as_double(value: exp.Expr) -> exp.Expr:
    return exp.Cast(this=value, to=sql_type("DOUBLE"))


def _zero() -> exp.Expr:
    return exp.Literal.number(0)


def filter_sets(metrics: tuple[Metric, ...]) -> tuple[tuple[RequiredFilter, ...], ...]:
    """The distinct sets of required filters among ``metrics``, in first-use order."""
    distinct = {frozenset(m.required_filters): m.required_filters for m in metrics}
    return tuple(distinct.values())


def groups_kept(metrics: tuple[Metric, ...], sql: ExpressionSql) -> exp.Expr | None:
    """The HAVING condition of a question whose metrics' required filters differ, or None.

    A group is kept where at least one row of it matches at least one metric's required
    filters: exactly the union of the groups each metric would have alone. Without it, a group
    whose rows every metric's filters exclude would still appear (all its cells empty or zero),
    revealing rows the filters exist to hide. A metric without required filters counts every
    row, and a group always has a row, so then no condition is needed.
    """
    sets = filter_sets(metrics)
    if not all(sets):
        return None
    matched = exp.or_(*(sql.required(filters) for filters in sets), copy=False)
    counted = exp.Count(this=exp.Case().when(matched, exp.Literal.number(1), copy=False))
    return exp.GT(this=counted, expression=_zero())


def some_row() -> exp.Expr:
    """``COUNT(*) > 0``: the HAVING of a statement without GROUP BY (no grain, no dimension),
    which would otherwise answer one row over no rows; a group appears only where a row is
    counted, as with a grain."""
    return exp.GT(this=exp.Count(this=exp.Star()), expression=_zero())
