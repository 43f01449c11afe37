"""The statement of a semi-additive metric: each entity's value in each period, then added up.

A balance does not add up over time: the balance of a month is each account's balance on the
last day of the month it has a row, summed across accounts. The inner statement reads the rows
(the same tables, joins and WHERE as a grouped statement: range, required filters, the caller's
filters) and selects, per row, its period, the dimension values asked and the value the term
aggregates; the outer statement groups the rows it keeps by period and dimensions and applies
the term's aggregate (a sum, or a count of the rows kept) across entities.

- ``last`` and ``first``: the inner statement also selects the row's time and the greatest
  (least) time of its entity within its period, a window function partitioned by period and
  the entity's columns; the outer statement keeps the rows at that instant, every one of them
  when several share it.
- ``min`` and ``max``: the inner statement groups by period, dimensions and entity, taking the
  smallest (largest) value; the outer statement adds those up.

Window functions, subqueries and GROUP BY are written alike by DuckDB, PostgreSQL and Spark;
no value is inlined (the dimensions and the term bind theirs once, in the inner SELECT).
"""

from typing import assert_never

from sqlglot import exp

from sutura.core.definitions.model import (
    Aggregate,
    AggregateTerm,
    Catalog,
    CountIfTerm,
    Dimension,
    ExpressionTerm,
    Metric,
    Model,
    RatioMeasure,
    SemiAdditive,
    SimpleMeasure,
    Term,
    TimeRule,
)
from sutura.core.nouns.source_facts import SourceFacts
from sutura.core.question.resolve import PERIOD, Resolved
from sutura.core.sql.compiled import Output, Passthrough
from sutura.core.sql.expression import ExpressionSql, model_sql
from sutura.core.sql.measures import sum_of
from sutura.core.sql.parts import Binder, Joins, base_table, column, join_clause, require
from sutura.core.sql.reading import asked_dimensions, joins_for, periods_of, where_of

INNER = "w"
VALUE = "value"
AT = "at"
CHOSEN = "chosen"


def semi_additive_metric(metrics: tuple[Metric, ...]) -> tuple[Metric, SemiAdditive] | None:
    """The one semi-additive metric of a half of a statement (always alone in its half)."""
    for metric in metrics:
        if metric.semi_additive is not None:
            return metric, metric.semi_additive
    return None


def semi_statement(
    resolved: Resolved,
    catalog: Catalog,
    source: SourceFacts,
    binder: Binder,
    metric: Metric,
    semi: SemiAdditive,
) -> tuple[exp.Select, tuple[Output, ...], Model, Joins, bool]:
    """The statement of ``metric``, asked alone in its half, built in textual order (the outer
    SELECT list binds nothing; the inner statement binds in its own order)."""
    model = require(catalog.model(metric.model), metric.model)
    dimensions = asked_dimensions(resolved, (metric,))
    joins = joins_for(resolved, dimensions, catalog)
    sql = model_sql(binder, joins.alias, catalog, model.name, source)
    keys = list(resolved.keys)
    term = _term(metric)
    items: list[exp.Expr] = [_inner(k).as_(k, quoted=True, copy=False) for k in keys]
    items.append(_outer(term, sql).as_(metric.name, quoted=True, copy=False))
    inner = _rows(resolved, model, metric, semi, dimensions, joins, term, sql)
    tree = exp.select(*items).from_(
        inner.subquery(exp.to_identifier(INNER, quoted=True), copy=False), copy=False
    )
    match semi.rule:
        case TimeRule.LAST | TimeRule.FIRST:
            tree = tree.where(_inner(AT).eq(_inner(CHOSEN)), copy=False)
        case TimeRule.MIN | TimeRule.MAX:
            pass
        case _:
            assert_never(semi.rule)
    tree = tree.group_by(*(_inner(k) for k in keys), copy=False)
    tree = tree.order_by(
        *(exp.Ordered(this=exp.Literal.number(i + 1), nulls_first=False) for i in range(len(keys))),
        copy=False,
    )
    outputs: list[Output] = [Passthrough(index=i) for i in range(len(keys) + 1)]
    return tree, tuple(outputs), model, joins, True


def _rows(
    resolved: Resolved,
    model: Model,
    metric: Metric,
    semi: SemiAdditive,
    dimensions: dict[str, Dimension],
    joins: Joins,
    term: Term,
    sql: ExpressionSql,
) -> exp.Select:
    """Each row's period, dimension values and value (with its instant and its entity's chosen
    instant), or each entity's smallest or largest value per period and dimension values."""
    periods = periods_of(resolved, joins)  # none without a grain: the range is one period
    items: list[exp.Expr] = [p.as_(PERIOD, quoted=True, copy=False) for p in periods]
    items.extend(
        sql.keyed(dimensions[n]).as_(n, quoted=True, copy=False) for n in resolved.dimensions
    )
    value = _value(term, sql)
    time = column(metric.time_column, joins.alias(metric.time_via))
    entity = [column(name) for name in semi.entity]
    again = column(metric.time_column, joins.alias(metric.time_via))
    match semi.rule:
        case TimeRule.LAST:
            chosen: exp.Expr | None = exp.Max(this=again)
        case TimeRule.FIRST:
            chosen = exp.Min(this=again)
        case TimeRule.MIN:
            chosen, value = None, exp.Min(this=value)
        case TimeRule.MAX:
            chosen, value = None, exp.Max(this=value)
        case _:
            assert_never(semi.rule)
    items.append(value.as_(VALUE, quoted=True, copy=False))
    grouped = chosen is None
    if chosen is not None:
        items.append(time.as_(AT, quoted=True, copy=False))
        window = exp.Window(this=chosen, partition_by=[*periods_of(resolved, joins), *entity])
        items.append(window.as_(CHOSEN, quoted=True, copy=False))
    tree = exp.select(*items).from_(base_table(model), copy=False)
    tree = tree.where(where_of(resolved, metric, dimensions, joins, True, sql), copy=False)
    for join in joins.all():
        table, on, kind = join_clause(join)
        tree = tree.join(table, on=on, join_type=kind, copy=False)
    if grouped:  # by position: a dimension's expression may bind constants, bound once
        positions = [
            exp.Literal.number(i + 1) for i in range(len(periods) + len(resolved.dimensions))
        ]
        tree = tree.group_by(*positions, *(column(name) for name in semi.entity), copy=False)
    return tree


def _term(metric: Metric) -> Term:
    match metric.measure:
        case SimpleMeasure(term=term):
            return term
        case RatioMeasure():
            raise LookupError(f"the metric {metric.name!r} is not a term (refused at load)")
        case _:
            assert_never(metric.measure)


def _value(term: Term, sql: ExpressionSql) -> exp.Expr:
    """What the term reads in a row: its column or ``of``, a 1 per row for a count of rows,
    kept only where its ``where`` (or its ``count_if`` column) holds."""
    match term:
        case AggregateTerm():
            return column(term.column)
        case CountIfTerm():
            return exp.Case().when(column(term.column), exp.Literal.number(1), copy=False)
        case ExpressionTerm():
            value = exp.Literal.number(1) if term.of is None else sql.value(term.of)
            if term.where is None:
                return value
            return exp.Case().when(sql.condition(term.where), value, copy=False)
        case _:
            assert_never(term)


def _outer(term: Term, sql: ExpressionSql) -> exp.Expr:
    """The term's aggregate across the rows (or entities' values) kept (a sum of integers in
    38 digits where the engine's own is 64-bit: :func:`~sutura.core.sql.measures.sum_of`)."""
    value = _inner(VALUE)
    match term:
        case CountIfTerm():
            return exp.Count(this=value)
        case AggregateTerm() | ExpressionTerm():
            match term.aggregate:
                case Aggregate.COUNT:
                    return exp.Count(this=value)
                case Aggregate.SUM:
                    return sum_of(term, value, sql)
                case (
                    Aggregate.COUNT_DISTINCT
                    | Aggregate.MIN
                    | Aggregate.MAX
                    | Aggregate.AVG
                    | Aggregate.MEDIAN
                    | Aggregate.PERCENTILE
                ):
                    raise LookupError(f"{term.aggregate.value} is not semi-additive (refused)")
                case _:
                    assert_never(term.aggregate)
        case _:
            assert_never(term)


def _inner(name: str) -> exp.Column:
    return exp.column(name, table=INNER, quoted=True)
