"""A semi-additive metric can be taken per entity and added up: checked with its model, at load.

The entity's columns are declared by the metric's model; the measure is one term that adds up
across entities — a ``sum`` under every rule, a count (``count``, ``count_if``) under ``last``
and ``first``, which count the rows taken (the smallest or largest count of rows is no count of
anything).
"""

from collections.abc import Iterator
from typing import assert_never

from sutura.core.catalog.document.parse import Document
from sutura.core.catalog.error import CatalogError, quoted
from sutura.core.definitions.model import (
    Aggregate,
    AggregateTerm,
    CountIfTerm,
    ExpressionTerm,
    Metric,
    Model,
    RatioMeasure,
    SimpleMeasure,
    Term,
    TimeRule,
)


def semi_additive_errors(model: Model, doc: Document, metric: Metric) -> Iterator[CatalogError]:
    """Every problem of ``metric``'s ``semi_additive`` key against its model, at its key."""
    semi = metric.semi_additive
    if semi is None:
        return
    for i, name in enumerate(semi.entity):
        if not model.has_column(name):
            problem = f"the model {quoted(model.name)} has no column {quoted(name)}"
            yield doc.error(f"semi_additive.entity[{i}]", problem)
    match metric.measure:
        case RatioMeasure():
            problem = (
                "a measure taken per entity in each period is one term (a sum or a count), "
                "added up across entities; a ratio is not"
            )
            yield doc.error("semi_additive", problem)
        case SimpleMeasure(term=term):
            taken = _aggregate(term)
            aggregates, what = _takes(semi.rule)
            if taken not in aggregates:
                allowed = " or ".join(a.value for a in aggregates)
                problem = (
                    f"the rule {semi.rule.value} takes each entity's {what} and adds "
                    f"them up across entities, so the measure is a {allowed}, not {taken.value}"
                )
                yield doc.error("semi_additive.rule", problem)
        case _:
            assert_never(metric.measure)


def _takes(rule: TimeRule) -> tuple[tuple[Aggregate, ...], str]:
    """The aggregates a rule adds up across entities, and what it takes of each entity."""
    match rule:
        case TimeRule.LAST:
            return (Aggregate.SUM, Aggregate.COUNT), "rows at its last instant of the period"
        case TimeRule.FIRST:
            return (Aggregate.SUM, Aggregate.COUNT), "rows at its first instant of the period"
        case TimeRule.MIN:
            return (Aggregate.SUM,), "smallest value of the period"
        case TimeRule.MAX:
            return (Aggregate.SUM,), "largest value of the period"
        case _:
            assert_never(rule)


def _aggregate(term: Term) -> Aggregate:
    match term:
        case CountIfTerm():
            return Aggregate.COUNT
        case AggregateTerm() | ExpressionTerm():
            return term.aggregate
        case _:
            assert_never(term)
