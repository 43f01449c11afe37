"""``via`` chains: the models a chain of many-to-one relationships reaches from a metric's model.

A chain starts at the metric's model, each step a relationship that starts where the chain
is, and it visits each model once (so a join never counts a row twice). A column of a metric,
a filter, a dimension or the time column may be reached this way.
"""

from collections.abc import Iterator, Mapping
from typing import Final, assert_never

from returns.result import Failure, Result, Success

from sutura.core.catalog.error import quoted
from sutura.core.definitions.model import (
    AggregateTerm,
    CountIfTerm,
    ExpressionTerm,
    FilterEquals,
    FilterIsNotNull,
    FilterIsTrue,
    FilterNotEquals,
    FilterPredicate,
    Measure,
    Metric,
    Model,
    RatioMeasure,
    Relationship,
    RequiredFilter,
    SimpleMeasure,
    Term,
)
from sutura.core.expression.nodes import Column, expression_columns, predicate_columns

NO_DUPLICATES: Final = "so that a join never counts a row twice"


def step_key(key: str, via: tuple[str, ...], step: int) -> str:
    """The key of one step of ``via`` written at ``key`` (a lone name has no index)."""
    return f"{key}.via" if len(via) == 1 else f"{key}.via[{step}]"


def walk(
    relationships: Mapping[str, Relationship], start: str, via: tuple[str, ...]
) -> Result[str, tuple[int, str]]:
    """The name of the model ``via`` reaches from the model ``start``, or the first step
    that does not resolve (its index and the problem)."""
    current = start
    visited = {current}
    for step, name in enumerate(via):
        found = relationships.get(name)
        if found is None:
            return Failure((step, f"no relationship is called {quoted(name)}"))
        if found.origin_model != current:
            problem = (
                f"the relationship {quoted(name)} starts from the model "
                f"{quoted(found.origin_model)}, but the chain is at the model {quoted(current)}"
            )
            return Failure((step, problem))
        current = found.target_model
        if current in visited:
            return Failure(
                (
                    step,
                    f"the relationship {quoted(name)} leads back to the model {quoted(current)}, "
                    "which the chain has already reached; a via chain visits each model once, "
                    f"{NO_DUPLICATES}",
                )
            )
        visited.add(current)
    return Success(current)


def reached(
    models: Mapping[str, Model],
    relationships: Mapping[str, Relationship],
    start: str,
    via: tuple[str, ...],
) -> Model | None:
    """The model ``via`` reaches from ``start``, or None when the chain or the model is not
    there (the checks that walk it say why)."""
    name = walk(relationships, start, via).value_or(None)
    return None if name is None else models.get(name)


def term_columns(term: Term) -> Iterator[Column]:
    """The column nodes a term's expressions read (none in the older forms)."""
    match term:
        case AggregateTerm() | CountIfTerm():
            return
        case ExpressionTerm():
            if term.of is not None:
                yield from expression_columns(term.of)
            if term.where is not None:
                yield from predicate_columns(term.where)
        case _:
            assert_never(term)


def measure_columns(measure: Measure) -> Iterator[Column]:
    """The column nodes a measure's expressions read."""
    match measure:
        case SimpleMeasure():
            yield from term_columns(measure.term)
        case RatioMeasure():
            yield from term_columns(measure.numerator)
            yield from term_columns(measure.denominator)
        case _:
            assert_never(measure)


def filter_columns(rule: RequiredFilter) -> Iterator[Column]:
    """The column nodes a required filter written in the expression vocabulary reads."""
    match rule:
        case FilterEquals() | FilterNotEquals() | FilterIsTrue() | FilterIsNotNull():
            return
        case FilterPredicate():
            yield from predicate_columns(rule.predicate)
        case _:
            assert_never(rule)


def computed_columns(metric: Metric) -> Iterator[Column]:
    """The column nodes the metric's measure and required filters read as expressions."""
    yield from measure_columns(metric.measure)
    for rule in metric.required_filters:
        yield from filter_columns(rule)


def via_paths(metric: Metric) -> Iterator[tuple[str, ...]]:
    """Every non-empty ``via`` chain the metric reads: its time column's, its dimensions',
    and those of every column its expressions read (each as written; repeats included)."""
    chains = [metric.time_via, *(d.via for d in metric.dimensions)]
    chains += [column.via for column in computed_columns(metric)]
    for dimension in metric.dimensions:
        if dimension.expression is not None:
            chains += [column.via for column in expression_columns(dimension.expression)]
    yield from (chain for chain in chains if chain)
