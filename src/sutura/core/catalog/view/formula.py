"""A metric's definition as a readable formula: its measure, the rows it counts, its time.

Built from the pinned definition alone (:mod:`sutura.core.expression.formula` writes each
expression), the same for the older forms and the expression vocabulary, so two spellings of
one meaning read alike. The text is raw author text; every surface escapes it.

>>> from sutura.core.definitions.model import AggregateTerm, Aggregate, FilterNotEquals
>>> measure_formula(SimpleMeasure(term=AggregateTerm(aggregate=Aggregate.SUM, column="amount")),
...     (FilterNotEquals(column="status", value="cancelled"),))
"sum(amount) where status != 'cancelled'"
"""

from typing import assert_never

from sutura.core.definitions.model import (
    AggregateTerm,
    CountIfTerm,
    Derived,
    DerivedOp,
    Dimension,
    ExpressionTerm,
    FilterEquals,
    FilterIsNotNull,
    FilterIsTrue,
    FilterNotEquals,
    FilterPredicate,
    Measure,
    Metric,
    RatioMeasure,
    RequiredFilter,
    SimpleMeasure,
    Term,
    ZeroDenominator,
)
from sutura.core.expression.formula import (
    column_formula,
    expression_formula,
    predicate_formula,
    text_formula,
)
from sutura.core.expression.nodes import Column


def whole_formula(metric: Metric) -> str:
    """Everything the metric computes, on one line: ``<measure>[ where <filters>]; time:
    <column>`` and ``; <dimension>: <what it reads>`` for each dimension (a shared one as the
    metric reads it, along the path to its model)."""
    parts = [metric_formula(metric), f"time: {time_formula(metric)}"]
    semi = metric.semi_additive
    if semi is not None:
        entity = ", ".join(column_formula(Column(name=name)) for name in semi.entity)
        parts.append(f"each period: the {semi.rule.value} value per {entity}, added up")
    parts += [f"{d.name}: {dimension_formula(d)}" for d in metric.dimensions]
    return "; ".join(parts)


def metric_formula(metric: Metric) -> str:
    """``<measure>[ where <required filters>]``."""
    return measure_formula(metric.measure, metric.required_filters)


def time_formula(metric: Metric) -> str:
    """The time column, reached along its relationships."""
    return column_formula(metric.time)


def dimension_formula(dimension: Dimension) -> str:
    """What a dimension reads: its column or its expression."""
    return expression_formula(dimension.value)


def measure_formula(measure: Measure, filters: tuple[RequiredFilter, ...]) -> str:
    """The measure, then the rows its required filters keep."""
    match measure:
        case SimpleMeasure():
            shown = term_formula(measure.term)
        case RatioMeasure():
            upper, lower = term_formula(measure.numerator), term_formula(measure.denominator)
            shown = f"({upper}) / ({lower}){_at_zero(measure.zero_denominator)}"
        case _:
            assert_never(measure)
    if not filters:
        return shown
    return f"{shown} where {' and '.join(_filter(f) for f in filters)}"


def _at_zero(rule: ZeroDenominator) -> str:
    match rule:
        case ZeroDenominator.YIELDS_NULL:
            return " (NULL where the denominator is zero)"
        case ZeroDenominator.FAILS:
            return " (refused where the denominator is zero)"
        case _:
            assert_never(rule)


def term_formula(term: Term) -> str:
    """``sum(amount)``, ``count(*) where paid is true``, ``percentile(x, 0.9) where …``."""
    match term:
        case AggregateTerm():
            return f"{term.aggregate.value}({column_formula(Column(name=term.column))})"
        case CountIfTerm():
            return f"count(*) where {column_formula(Column(name=term.column))} is true"
        case ExpressionTerm():
            of = "*" if term.of is None else expression_formula(term.of)
            fraction = "" if term.fraction is None else f", {term.fraction}"
            shown = f"{term.aggregate.value}({of}{fraction})"
            if term.where is None:
                return shown
            return f"{shown} where {predicate_formula(term.where)}"
        case _:
            assert_never(term)


def _filter(rule: RequiredFilter) -> str:
    match rule:
        case FilterEquals():
            return f"{column_formula(Column(name=rule.column))} = {text_formula(rule.value)}"
        case FilterNotEquals():
            return f"{column_formula(Column(name=rule.column))} != {text_formula(rule.value)}"
        case FilterIsTrue():
            return f"{column_formula(Column(name=rule.column))} is true"
        case FilterIsNotNull():
            return f"{column_formula(Column(name=rule.column))} is not null"
        case FilterPredicate():
            return f"({predicate_formula(rule.predicate)})"
        case _:
            assert_never(rule)


def derived_formula(derived: Derived) -> str:
    """``revenue / active_customers``: the operation on the two metrics, then its scale
    (``(cancelled_orders / order_count) * 100``)."""
    first, second = derived.of
    suffix = ""
    match derived.op:
        case DerivedOp.RATIO:
            zero = derived.zero_denominator
            suffix = "" if zero is None else _at_zero(zero)
            shown = f"{first} / {second}"
        case DerivedOp.DIFFERENCE:
            shown = f"{first} - {second}"
        case DerivedOp.SUM:
            shown = f"{first} + {second}"
        case DerivedOp.PRODUCT:
            shown = f"{first} * {second}"
        case _:
            assert_never(derived.op)
    if derived.scale is not None:
        shown = f"({shown}) * {derived.scale}"
    return shown + suffix
