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
            if taken not in _ALLOWED[semi.rule]:
                allowed = " or ".join(a.value for a in _ALLOWED[semi.rule])
                problem = (
                    f"the rule {semi.rule.value} takes each entity's {_WHAT[semi.rule]} and adds "
                    f"them up across entities, so the measure is a {allowed}, not {taken.value}"
                )
                yield doc.error("semi_additive.rule", problem)
        case _:
            assert_never(metric.measure)


_ROWS = (Aggregate.SUM, Aggregate.COUNT)
_ALLOWED = {
    TimeRule.LAST: _ROWS,
    TimeRule.FIRST: _ROWS,
    TimeRule.MIN: (Aggregate.SUM,),
    TimeRule.MAX: (Aggregate.SUM,),
}
_WHAT = {
    TimeRule.LAST: "rows at its last instant of the period",
    TimeRule.FIRST: "rows at its first instant of the period",
    TimeRule.MIN: "smallest value of the period",
    TimeRule.MAX: "largest value of the period",
}


def _aggregate(term: Term) -> Aggregate:
    match term:
        case CountIfTerm():
            return Aggregate.COUNT
        case AggregateTerm() | ExpressionTerm():
            return term.aggregate
        case _:
            assert_never(term)
