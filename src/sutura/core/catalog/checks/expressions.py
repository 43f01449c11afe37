"""A metric's expressions checked against the models they read, and settled.

Every column an expression reads exists, on the metric's model or on the model its ``via``
chain reaches, with a declared type that fits its use (``core/expression/check.py``); a bare
constant takes the type of the operand beside it. The metric comes back with its expressions
settled: constants typed, and a required filter the four older forms can write read as that
form (``equals: [{column: status}, shipped]`` on a text column is ``equals: {column: status,
value: shipped}``: the same meaning, the same digest, the same SQL). Each problem names the
document, the line and the key path where it is written.
"""

from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import TypeVar, assert_never

import msgspec
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.core.catalog.checks.older import older_filter, older_value_problem
from sutura.core.catalog.checks.paths import step_key, walk
from sutura.core.catalog.document.parse import Document
from sutura.core.catalog.error import CatalogError, quoted
from sutura.core.definitions.model import (
    Aggregate,
    AggregateTerm,
    CountIfTerm,
    Dimension,
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
from sutura.core.expression.check import check_expression, check_predicate
from sutura.core.expression.constants import canonical_text, kind_for
from sutura.core.expression.nodes import (
    Column,
)
from sutura.core.expression.problem import ColumnTypes, ExpressionError
from sutura.core.expression.types import (
    MAX_PRECISION,
    SqlType,
    declared_type,
    shown_type,
    traits,
)
from sutura.core.nouns.source_facts import ModelColumn

_T = TypeVar("_T")
_KEPT_SCALE = 6  # Spark never cuts a result's scale below min(scale, 6)


class _StoppedError(Exception):
    """Stops settling one part of a metric at its first problem."""

    def __init__(self, error: CatalogError) -> None:
        super().__init__(error.problem)
        self.error = error


def column_types(
    models: Mapping[str, Model],
    relationships: Mapping[str, Relationship],
    start: str,
    fixed_length: frozenset[ModelColumn] = frozenset(),
) -> ColumnTypes:
    """The lookup of a column node from the model ``start``: its declared type, or the problem.

    A text column whose source holds it as ``CHAR(n)`` (one of ``fixed_length``, learnt when
    startup checks the models) is fixed-length, as if it were declared so."""

    def lookup(column: Column) -> Result[SqlType | None, tuple[str, str]]:
        reached = walk(relationships, start, column.via)
        if not is_successful(reached):
            step, problem = reached.failure()
            return Failure((step_key("", column.via, step).lstrip("."), problem))
        model = models.get(reached.unwrap())
        if model is None:
            return Failure(("column", f"no model is called {quoted(reached.unwrap())}"))
        found = model.column(column.name)
        if found is None:
            problem = f"the model {quoted(model.name)} has no column {quoted(column.name)}"
            return Failure(("column", problem))
        if found.type is None:
            return Success(None)
        declared = declared_type(found.type)
        if declared is None:
            problem = (
                f"the column {quoted(column.name)} is declared {quoted(found.type)}, a type no "
                "expression computes with"
            )
            return Failure(("column", problem))
        held = ModelColumn(model=model.name, column=found.name) in fixed_length
        fixed = held and traits(declared.family).text
        return Success(msgspec.structs.replace(declared, padded=True) if fixed else declared)

    return lookup


def settle_metric(
    models: Mapping[str, Model],
    relationships: Mapping[str, Relationship],
    doc: Document,
    metric: Metric,
) -> tuple[Metric, list[CatalogError]]:
    """``metric`` with its expressions settled, and every problem found in them."""
    if metric.model not in models:
        return metric, []  # the metric's own checks name the missing model
    columns = column_types(models, relationships, metric.model)
    errors: list[CatalogError] = []
    measure = _settled(errors, partial(_measure, doc, metric.measure, columns), metric.measure)
    filters = tuple(
        _settled(errors, partial(_filter, doc, f"required_filters[{i}]", f, columns), f)
        for i, f in enumerate(metric.required_filters)
    )
    dimensions = tuple(
        d  # a shared dimension was settled on its model (checks/shared.py)
        if d.shared_from is not None
        else _settled(errors, partial(_dimension, doc, f"dimensions[{i}]", d, columns), d)
        for i, d in enumerate(metric.dimensions)
    )
    errors.extend(_time_errors(doc, metric, columns))
    settled = msgspec.structs.replace(
        metric, measure=measure, required_filters=filters, dimensions=dimensions
    )
    return settled, errors


def settle_dimension(
    doc: Document, key: str, dimension: Dimension, columns: ColumnTypes
) -> tuple[Dimension, list[CatalogError]]:
    """``dimension`` (written at ``key`` of ``doc``) with its expression settled against
    ``columns``, and the problem found in it, if any."""
    errors: list[CatalogError] = []
    settled = _settled(errors, partial(_dimension, doc, key, dimension, columns), dimension)
    return settled, errors


def _settled(errors: list[CatalogError], settle: Callable[[], _T], unsettled: _T) -> _T:
    """What ``settle`` returns, or ``unsettled`` with its problem added to ``errors``."""
    try:
        return settle()
    except _StoppedError as stop:
        errors.append(stop.error)
        return unsettled


def _error(doc: Document, base: str, error: ExpressionError) -> _StoppedError:
    key = f"{base}.{error.key}" if error.key else base
    return _StoppedError(doc.error(key, error.problem))


def _measure(doc: Document, measure: Measure, columns: ColumnTypes) -> Measure:
    match measure:
        case SimpleMeasure():
            return SimpleMeasure(term=_term(doc, "measure.simple", measure.term, columns))
        case RatioMeasure():
            return RatioMeasure(
                numerator=_term(doc, "measure.ratio.numerator", measure.numerator, columns),
                denominator=_term(doc, "measure.ratio.denominator", measure.denominator, columns),
                zero_denominator=measure.zero_denominator,
            )
        case _:
            assert_never(measure)


def _term(doc: Document, key: str, term: Term, columns: ColumnTypes) -> Term:
    match term:
        case AggregateTerm() | CountIfTerm():
            return term  # the older forms: their columns are checked with the metric
        case ExpressionTerm():
            return _expression_term(doc, key, term, columns)
        case _:
            assert_never(term)


def _expression_term(
    doc: Document, key: str, term: ExpressionTerm, columns: ColumnTypes
) -> ExpressionTerm:
    where = term.where
    if where is not None:
        checked_where = check_predicate(where, columns)
        if not is_successful(checked_where):
            raise _error(doc, f"{key}.where", checked_where.failure())
        where = checked_where.unwrap()
    if term.of is None:
        return ExpressionTerm(aggregate=term.aggregate, where=where, fraction=term.fraction)
    checked = check_expression(term.of, columns)
    if not is_successful(checked):
        raise _error(doc, f"{key}.of", checked.failure())
    typed = checked.unwrap()
    problem = _aggregate_problem(term.aggregate, typed.type) or _percentile_problem(
        term, typed.type
    )
    if problem is not None:
        raise _StoppedError(doc.error(f"{key}.aggregate", problem))
    return ExpressionTerm(
        aggregate=term.aggregate, of=typed.expr, where=where, fraction=term.fraction
    )


def _aggregate_problem(aggregate: Aggregate, of: SqlType) -> str | None:
    """Why ``aggregate`` cannot apply to values of type ``of``, or None."""
    kind = traits(of.family)
    match aggregate:
        case Aggregate.SUM | Aggregate.AVG | Aggregate.MEDIAN | Aggregate.PERCENTILE:
            fits, wanted = kind.number, "numbers"
        case Aggregate.MIN | Aggregate.MAX:
            fits, wanted = kind.ordered, "numbers, dates or timestamps"
        case Aggregate.COUNT | Aggregate.COUNT_DISTINCT:
            fits, wanted = True, ""
        case _:
            assert_never(aggregate)
    if fits:
        return None
    return f"{aggregate.value} applies to {wanted}, but of is {shown_type(of)}"


def _percentile_problem(term: ExpressionTerm, of: SqlType) -> str | None:
    """Why a percentile of ``of`` would not be exact on every engine, or None.

    The interpolation multiplies the gap between two values by a decimal of the fraction's
    ``k`` digits: ``p + 2k + 3`` digits at scale ``s + k``, which Spark keeps only within 38
    digits or at a scale of at most 6.
    """
    if term.fraction is None and not _is_median(term.aggregate):
        return None
    if not traits(of.family).exact:
        return None
    digits = len(term.fraction.split(".")[1]) if term.fraction is not None else 1
    precision = of.precision or MAX_PRECISION
    scale = of.scale or 0
    if precision + 2 * digits + 3 <= MAX_PRECISION or scale + digits <= _KEPT_SCALE:
        return None
    return (
        f"the {term.aggregate.value} of {shown_type(of)} at a fraction of {digits} digits needs "
        f"{precision + 2 * digits + 3} digits at scale {scale + digits}; Spark would cut the "
        "scale: write the fraction with fewer digits, or narrow the value's precision"
    )


def _is_median(aggregate: Aggregate) -> bool:
    match aggregate:
        case Aggregate.MEDIAN:
            return True
        case (
            Aggregate.SUM
            | Aggregate.COUNT
            | Aggregate.COUNT_DISTINCT
            | Aggregate.MIN
            | Aggregate.MAX
            | Aggregate.AVG
            | Aggregate.PERCENTILE
        ):
            return False
        case _:
            assert_never(aggregate)


def _filter(doc: Document, key: str, rule: RequiredFilter, columns: ColumnTypes) -> RequiredFilter:
    match rule:
        case FilterEquals():
            return _older_value(doc, f"{key}.equals", rule, columns)
        case FilterNotEquals():
            return _older_value(doc, f"{key}.not_equals", rule, columns)
        case FilterIsTrue() | FilterIsNotNull():
            return rule  # the older forms: their columns are checked with the metric
        case FilterPredicate():
            older = older_filter(rule, columns)
            if older is not None:
                return older
            checked = check_predicate(rule.predicate, columns)
            if not is_successful(checked):
                raise _error(doc, key, checked.failure())
            return FilterPredicate(predicate=checked.unwrap())
        case _:
            assert_never(rule)


def _older_value(
    doc: Document, key: str, rule: FilterEquals | FilterNotEquals, columns: ColumnTypes
) -> RequiredFilter:
    """An older form, whose column is checked with the metric; its value must be one of the
    column's type, which every engine then reads alike."""
    declared = columns(Column(name=rule.column)).value_or(None)
    problem = older_value_problem(rule.value, declared)
    if problem is not None:
        raise _error(doc, key, ExpressionError(key="value", problem=problem))
    return rule


def _dimension(doc: Document, key: str, dimension: Dimension, columns: ColumnTypes) -> Dimension:
    expression = dimension.expression
    if expression is None:
        # A column dimension: its chain and column are checked with the metric; it takes its
        # column's declared type (a filter's value is typed by it), which moves no digest.
        declared = columns(Column(name=dimension.column or "", via=dimension.via)).value_or(None)
        family = None if declared is None else declared.family
        return msgspec.structs.replace(dimension, type=family)
    if dimension.type is None:
        return dimension
    # A bare constant with nothing beside it takes the type the dimension declares.
    checked = check_expression(expression, columns, SqlType(family=dimension.type))
    if not is_successful(checked):
        raise _error(doc, f"{key}.expression", checked.failure())
    typed = checked.unwrap()
    for i, value in enumerate(dimension.values or ()):
        spelled = canonical_text(kind_for(dimension.type), value)
        if not is_successful(spelled) or spelled.unwrap() != value:
            problem = (
                f"{quoted(value)} is not a value of the declared type {dimension.type.value}"
                f" written in its one spelling"
                + ("" if is_successful(spelled) else f": {spelled.failure()}")
            )
            raise _StoppedError(doc.error(f"{key}.values[{i}]", problem))
    if typed.type.family != dimension.type:
        problem = (
            f"declared {dimension.type.value}, but the expression computes {shown_type(typed.type)}"
        )
        raise _StoppedError(doc.error(f"{key}.type", problem))
    return Dimension(
        name=dimension.name,
        values=dimension.values,
        description=dimension.description,
        expression=typed.expr,
        type=dimension.type,
    )


def _time_errors(doc: Document, metric: Metric, columns: ColumnTypes) -> Iterator[CatalogError]:
    """A time column reached along ``via``: the chain resolves and the column is a day or an
    instant (on the metric's own model the older check names a missing column)."""
    if not metric.time_via:
        return
    found = columns(metric.time)
    if not is_successful(found):
        key, problem = found.failure()
        yield doc.error(f"time_column.{key}", problem)
        return
    declared = found.unwrap()
    if declared is not None and not traits(declared.family).temporal:
        problem = f"a time column is a date or a timestamp, but this is {shown_type(declared)}"
        yield doc.error("time_column.column", problem)
