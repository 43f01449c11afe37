"""Building blocks of compiled statements: bind parameters, joins and measure expressions.

Everything here builds sqlglot expressions; no value is ever written into SQL text. Identifiers
are always quoted. The base model is aliased ``t0``; each joined model gets the next ``tN``.
"""

from collections.abc import Callable
from typing import NamedTuple, TypeVar, assert_never

from sqlglot import exp

from sutura.core.catalog.model import (
    Aggregate,
    AggregateTerm,
    Catalog,
    CountIfTerm,
    Dimension,
    FilterEquals,
    FilterIsNotNull,
    FilterIsTrue,
    FilterNotEquals,
    Metric,
    Model,
    RatioMeasure,
    Relationship,
    RequiredFilter,
    SimpleMeasure,
    Term,
    ZeroDenominator,
)

BASE_ALIAS = "t0"

_T = TypeVar("_T")
TermAt = tuple[int, int | None]
"""Offsets of a term's exact parts among its metric's columns: a value and an optional count."""


def require(found: _T | None, what: str) -> _T:
    """``found``, or a LookupError naming what the catalog does not define."""
    if found is None:
        raise LookupError(f"the catalog does not define {what}")
    return found


def column(name: str, table: str = BASE_ALIAS) -> exp.Column:
    """The quoted column ``"table"."name"``."""
    return exp.column(name, table=table, quoted=True)


def _table(name: str, alias: str) -> exp.Table:
    """A quoted table reference; a dotted name is ``[catalog.]schema.table``."""
    *qualifiers, last = name.split(".")
    schema = qualifiers.pop() if qualifiers else None
    catalog = ".".join(qualifiers) if qualifiers else None
    return exp.Table(
        this=exp.to_identifier(last, quoted=True),
        db=None if schema is None else exp.to_identifier(schema, quoted=True),
        catalog=None if catalog is None else exp.to_identifier(catalog, quoted=True),
        alias=exp.TableAlias(this=exp.to_identifier(alias, quoted=True)),
    )


class Binder:
    """Collects bound values in the order their placeholders are created.

    Callers build the statement in textual order (SELECT list, WHERE, ORDER BY, LIMIT), so
    creation order is placeholder order.
    """

    def __init__(self) -> None:
        self._values: list[object] = []

    def bind(self, value: object) -> exp.Placeholder:
        """A positional placeholder standing for ``value``."""
        self._values.append(value)
        return exp.Placeholder()

    def required(self, filters: tuple[RequiredFilter, ...]) -> exp.Expr:
        """The conjunction of a metric's required filters, on the base model."""
        return exp.and_(*(self._required_one(f) for f in filters))

    def _required_one(self, item: RequiredFilter) -> exp.Expr:
        target = column(item.column)
        match item:
            case FilterEquals():
                return target.eq(self.bind(item.value))
            case FilterNotEquals():
                return target.neq(self.bind(item.value))
            case FilterIsTrue():
                return exp.Is(this=target, expression=exp.true())
            case FilterIsNotNull():
                return exp.not_(exp.Is(this=target, expression=exp.null()))
            case _:
                assert_never(item)

    def values(self, placeholders: int) -> tuple[object, ...]:
        """The bound values, checked against the number of placeholders in the statement."""
        if placeholders != len(self._values):
            raise AssertionError("every placeholder must have exactly one bound value")
        return tuple(self._values)


class Join(NamedTuple):
    """One LEFT or INNER join of a relationship's target model."""

    alias: str
    parent: str
    relationship: Relationship
    target: Model
    inner: bool


class Joins:
    """The joins a question needs, one per distinct ``via`` path prefix, in first-use order."""

    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog
        self._joins: dict[tuple[str, ...], Join] = {}

    def add(self, via: tuple[str, ...], *, inner: bool) -> None:
        """Join every relationship along ``via``; INNER along the whole path when ``inner``."""
        for depth in range(1, len(via) + 1):
            path = via[:depth]
            known = self._joins.get(path)
            if known is None:
                relationship = require(self._catalog.relationship(path[-1]), path[-1])
                target = require(self._catalog.model(relationship.target_model), "a model")
                alias = f"t{len(self._joins) + 1}"
                known = Join(alias, self.alias(path[:-1]), relationship, target, inner=False)
            self._joins[path] = known._replace(inner=known.inner or inner)

    def alias(self, via: tuple[str, ...]) -> str:
        """The alias of the model reached along ``via`` (``t0`` for the base model)."""
        return BASE_ALIAS if not via else self._joins[via].alias

    def column(self, dimension: Dimension) -> exp.Column:
        """The column a dimension reads, on the model its ``via`` path reaches."""
        return column(dimension.column, self.alias(dimension.via))

    def all(self) -> tuple[Join, ...]:
        """Every join, in alias order."""
        return tuple(self._joins.values())


def base_table(model: Model) -> exp.Table:
    """The base model's table, aliased ``t0``."""
    return _table(model.table, BASE_ALIAS)


def join_clause(join: Join) -> tuple[exp.Table, exp.Expr, str]:
    """The table, the ON condition and the join type of one join."""
    keys = [
        column(pair.origin, join.parent).eq(column(pair.target, join.alias))
        for pair in join.relationship.keys
    ]
    return _table(join.target.table, join.alias), exp.and_(*keys), "inner" if join.inner else "left"


Guard = Callable[[], exp.Expr] | None
"""Builds a fresh copy of a metric's required filters (fresh binds), or None."""


class Parts(NamedTuple):
    """The selected columns of one metric and, for avg and ratios, how to divide them."""

    columns: tuple[tuple[str, exp.Expr], ...]
    quotient: tuple[TermAt, TermAt | None, ZeroDenominator] | None


def _guarded(value: exp.Expr, guard: Guard) -> exp.Expr:
    """``value``, or ``CASE WHEN <required filters> THEN value END``."""
    return value if guard is None else exp.Case().when(guard(), value)


def _term_columns(term: Term, guard: Guard) -> list[exp.Expr]:
    """The exact aggregates of a term: one, or a sum and a count for ``avg``."""
    if isinstance(term, CountIfTerm):
        condition: exp.Expr = column(term.column)
        if guard is not None:
            condition = exp.and_(guard(), condition)
        return [exp.Count(this=exp.Case().when(condition, exp.Literal.number(1)))]
    if term.aggregate is Aggregate.AVG:
        return [
            exp.Sum(this=_guarded(column(term.column), guard)),
            exp.Count(this=_guarded(column(term.column), guard)),
        ]
    return [_aggregate(term, _guarded(column(term.column), guard))]


def _aggregate(term: AggregateTerm, value: exp.Expr) -> exp.Expr:
    """``term``'s aggregate over ``value``; ``avg`` is the engine's own (for ordering only)."""
    match term.aggregate:
        case Aggregate.SUM:
            return exp.Sum(this=value)
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
        case _:
            assert_never(term.aggregate)


def _guard(metric: Metric, inline: bool, binder: Binder) -> Guard:
    """A builder of the metric's required filters when they go inside its aggregates."""
    if not inline or not metric.required_filters:
        return None
    return lambda: binder.required(metric.required_filters)


def metric_parts(metric: Metric, *, inline: bool, binder: Binder) -> Parts:
    """The selected columns of ``metric``, with its required filters inside them when ``inline``."""
    guard = _guard(metric, inline, binder)
    name = metric.name
    match metric.measure:
        case SimpleMeasure(term=term):
            values = _term_columns(term, guard)
            if len(values) == 1:
                return Parts(((name, values[0]),), None)
            aliases = (f"{name}.sum", f"{name}.count")
            return Parts(tuple(zip(aliases, values, strict=True)), ((0, 1), None, _NULL_IF_EMPTY))
        case RatioMeasure(numerator=top, denominator=bottom, zero_denominator=zero):
            upper = _named(f"{name}.numerator", _term_columns(top, guard))
            lower = _named(f"{name}.denominator", _term_columns(bottom, guard))
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
    metric: Metric, *, inline: bool, binder: Binder, ordinal: int, average_as_quotient: bool = False
) -> exp.Expr:
    """What ``top`` orders a metric by: its column ordinal, or its quotient as a double.

    An average is the engine's AVG, or with ``average_as_quotient`` its exact sum divided by
    its count as doubles: engines whose AVG of a decimal is a decimal rounded to a few places
    (Spark) would otherwise tie where DuckDB does not.
    """
    guard = _guard(metric, inline, binder)
    match metric.measure:
        case SimpleMeasure(term=AggregateTerm(aggregate=Aggregate.AVG) as term):
            if average_as_quotient:
                total = exp.Sum(this=_guarded(column(term.column), guard))
                count = exp.Count(this=_guarded(column(term.column), guard))
                return _double_quotient(total, count)
            return exp.Avg(this=_guarded(column(term.column), guard))
        case SimpleMeasure():
            return exp.Literal.number(ordinal)
        case RatioMeasure(numerator=top, denominator=bottom):
            return _double_quotient(_natural(top, guard), _natural(bottom, guard))
        case _:
            assert_never(metric.measure)


def _double_quotient(upper: exp.Expr, lower: exp.Expr) -> exp.Expr:
    """``CAST(upper AS DOUBLE) / NULLIF(CAST(lower AS DOUBLE), 0)``: NULL where lower is 0."""
    return exp.Div(
        this=_as_double(upper), expression=exp.Nullif(this=_as_double(lower), expression=_zero())
    )


def _natural(term: Term, guard: Guard) -> exp.Expr:
    """The term as one SQL aggregate (``avg`` as AVG), for ordering."""
    if isinstance(term, CountIfTerm):
        return _term_columns(term, guard)[0]
    return _aggregate(term, _guarded(column(term.column), guard))


def _as_double(value: exp.Expr) -> exp.Expr:
    return exp.Cast(this=value, to=exp.DataType.build("DOUBLE"))


def _zero() -> exp.Expr:
    return exp.Literal.number(0)
