"""What a statement reads besides its dimensions' columns: the types of a model's columns and
which of them its source holds as ``CHAR(n)`` or as instants (and the instant a wall time means
there), the ``via`` chains of a metric's time column,
measure and required filters, and a caller's filter value bound as its dimension's type."""

import datetime
from collections.abc import Callable, Iterator
from typing import NamedTuple, assert_never

from returns.pipeline import is_successful

from sutura.core.catalog.checks.expressions import column_types
from sutura.core.catalog.checks.paths import computed_columns, walk
from sutura.core.definitions.model import (
    Catalog,
    Dimension,
    FilterEquals,
    FilterIsNotNull,
    FilterIsTrue,
    FilterNotEquals,
    FilterPredicate,
    Metric,
    RequiredFilter,
)
from sutura.core.expression.constants import kind_for
from sutura.core.expression.nodes import (
    Arithmetic,
    Between,
    Buckets,
    Case,
    Check,
    Coalesce,
    Column,
    Compare,
    Comparison,
    Connective,
    Constant,
    ConstantKind,
    DatePart,
    Expr,
    Junction,
    Member,
    Membership,
    Negate,
    Not,
    Predicate,
    StartsWith,
    Test,
)
from sutura.core.expression.problem import ColumnTypes
from sutura.core.expression.types import FAMILY_OF_NAME, spelled_base
from sutura.core.nouns.source_facts import ModelColumn, SourceFacts

HeldColumns = Callable[[Column], bool]
"""Whether a column node reads a column its source holds as ``CHAR(n)``."""


class Zoned(NamedTuple):
    """Where a statement reads instants: the zone its sessions run in, and whether a column
    node reads a column declared ``timestamp with time zone``."""

    zone: datetime.tzinfo
    reads_instant: Callable[[Column], bool]


def instant_of(wall: datetime.datetime, zone: datetime.tzinfo) -> str:
    """The instant the wall time ``wall`` means in ``zone``, as UTC text every engine reads:
    where the zone repeats it (falling back), the earlier of the two; where it skips it
    (springing forward), the wall time shifted forward by the gap (``fold=0``, PEP 495, as
    java.time reads it). PostgreSQL and DuckDB would take the later of two.

    >>> import zoneinfo
    >>> new_york = zoneinfo.ZoneInfo("America/New_York")
    >>> instant_of(datetime.datetime(2024, 11, 3, 1, 30), new_york)
    '2024-11-03 05:30:00+00:00'
    >>> instant_of(datetime.datetime(2024, 3, 10, 2, 30), new_york)
    '2024-03-10 07:30:00+00:00'
    """
    return wall.replace(tzinfo=zone, fold=0).astimezone(datetime.UTC).isoformat(sep=" ")


def catalog_zoned(catalog: Catalog, model: str, source: SourceFacts) -> Zoned | None:
    """Which column nodes read from the model ``model`` of ``catalog`` read instants (declared
    ``TIMESTAMPTZ``, ``timestamp with time zone``, ``TIMESTAMP_LTZ``), in ``source``'s zone;
    None where the zone is not known (the engine then reads a wall time itself)."""
    if source.zone is None:
        return None

    def reads_instant(read: Column) -> bool:
        reached = _reached(catalog, model, read)
        if reached is None or reached.type is None:
            return False
        return FAMILY_OF_NAME.get(spelled_base(reached.type)) == "timestamptz"

    return Zoned(source.zone, reads_instant)


def catalog_types(catalog: Catalog, model: str, source: SourceFacts) -> ColumnTypes:
    """The declared type of a column node read from the model ``model`` of ``catalog``; a text
    column ``source`` holds as ``CHAR(n)`` is fixed-length whatever its declared type, so an
    expression reads it without the padding."""
    return column_types(
        catalog.models_by_name(), catalog.relationships_by_name(), model, source.fixed_length
    )


def catalog_held(catalog: Catalog, model: str, source: SourceFacts) -> HeldColumns:
    """Whether a column node read from the model ``model`` of ``catalog`` reads, at the end of
    its ``via`` chain, a column ``source`` holds as ``CHAR(n)`` (whatever its declared type, and
    whether it declares one: the statement reads it without the padding, its type is kept)."""
    return _among(catalog, model, source.fixed_length)


def catalog_text(catalog: Catalog, model: str, source: SourceFacts) -> HeldColumns:
    """Whether a column node read from the model ``model`` of ``catalog`` reads, at the end of
    its ``via`` chain, a column ``source`` holds as text (whether the catalog declares its type
    or not)."""
    return _among(catalog, model, source.text)


def catalog_code_point(catalog: Catalog, model: str, source: SourceFacts) -> HeldColumns:
    """Whether a column node read from the model ``model`` of ``catalog`` reads, at the end of
    its ``via`` chain, a text column ``source`` orders by code point as it is (no collation
    need be named to order it so)."""
    return _among(catalog, model, source.code_point)


def _among(catalog: Catalog, model: str, columns: frozenset[ModelColumn]) -> HeldColumns:
    """Whether a column node read from ``model`` reads one of ``columns`` at the end of its
    ``via`` chain."""
    if not columns:
        return none_held

    def among(read: Column) -> bool:
        reached = _reached(catalog, model, read)
        return reached is not None and ModelColumn(model=reached.model, column=read.name) in columns

    return among


class _Reached(NamedTuple):
    """The model a column node's ``via`` chain reaches, and the type the column declares there."""

    model: str
    type: str | None


def _reached(catalog: Catalog, model: str, read: Column) -> _Reached | None:
    """Where the column node ``read``, read from ``model``, ends: None where its chain or its
    column is not in ``catalog`` (a statement of this catalog never reads such a node)."""
    reached = walk(catalog.relationships_by_name(), model, read.via)
    found = catalog.model(reached.unwrap()) if is_successful(reached) else None
    declared = None if found is None else found.column(read.name)
    return None if found is None or declared is None else _Reached(found.name, declared.type)


def none_held(_read: Column) -> bool:
    """No column is held as ``CHAR(n)`` (a source whose columns are not known, or a statement
    reading columns another statement already trimmed)."""
    return False


def metric_chains(metric: Metric) -> Iterator[tuple[str, ...]]:
    """The non-empty ``via`` chains of the metric's time column, measure and required filters,
    in the order they are written (its dimensions' chains are joined when they are asked)."""
    if metric.time_via:
        yield metric.time_via
    for column in computed_columns(metric):
        if column.via:
            yield column.via


def filter_constant(dimension: Dimension, value: str) -> Constant:
    """A caller's filter value (in its type's one spelling, checked when the question was
    resolved) as the constant it is bound as: of the dimension's type, text where its column
    declares none."""
    kind = ConstantKind.TEXT if dimension.type is None else kind_for(dimension.type)
    return Constant(kind=kind, text=value)


def strict_chains(expr: Expr) -> frozenset[tuple[str, ...]]:
    """The ``via`` chains of the columns whose NULL makes ``expr`` NULL (a column, arithmetic,
    a negation, a date part or buckets of them; not what ``coalesce`` or ``case`` choose)."""
    match expr:
        case Column():
            return frozenset({expr.via}) if expr.via else frozenset()
        case Arithmetic():
            return frozenset().union(*(strict_chains(o) for o in expr.operands))
        case Negate() | DatePart() | Buckets():
            return strict_chains(expr.of)
        case Constant() | Coalesce() | Case():
            return frozenset()
        case _:
            assert_never(expr)


def rejected_chains(predicate: Predicate) -> frozenset[tuple[str, ...]]:
    """The ``via`` chains a row must reach for ``predicate`` to hold: where a column along one
    is NULL (a missing related row) the predicate is false, so joining that chain INNER keeps
    exactly the rows a LEFT join and the predicate keep."""
    match predicate:
        case Compare():
            if _negative(predicate.op):
                return frozenset()
            return strict_chains(predicate.left) | strict_chains(predicate.right)
        case Between():
            parts = (predicate.value, predicate.low, predicate.high)
            return frozenset().union(*(strict_chains(p) for p in parts))
        case Member():
            return frozenset() if _excluding(predicate.op) else strict_chains(predicate.value)
        case Test():
            return frozenset() if _null_test(predicate.check) else strict_chains(predicate.of)
        case StartsWith():
            return strict_chains(predicate.value) | strict_chains(predicate.prefix)
        case Junction():
            return _junction_chains(predicate)
        case Not():
            return frozenset()
        case _:
            assert_never(predicate)


def _junction_chains(predicate: Junction) -> frozenset[tuple[str, ...]]:
    """Every part's chains for ``and`` (each part must hold), the common ones for ``or``."""
    found = [rejected_chains(p) for p in predicate.of]
    match predicate.op:
        case Connective.AND:
            return frozenset().union(*found)
        case Connective.OR:
            return frozenset.intersection(*found)
        case _:
            assert_never(predicate.op)


def _negative(op: Comparison) -> bool:
    match op:
        case Comparison.NOT_EQUALS:
            return True
        case (
            Comparison.EQUALS
            | Comparison.LESS_THAN
            | Comparison.AT_MOST
            | Comparison.GREATER_THAN
            | Comparison.AT_LEAST
        ):
            return False
        case _:
            assert_never(op)


def _excluding(op: Membership) -> bool:
    match op:
        case Membership.NOT_IN:
            return True
        case Membership.IN:
            return False
        case _:
            assert_never(op)


def _null_test(check: Check) -> bool:
    match check:
        case Check.IS_NULL:
            return True
        case Check.IS_NOT_NULL | Check.IS_TRUE:
            return False
        case _:
            assert_never(check)


def inner_chains(metrics: tuple[Metric, ...]) -> Iterator[tuple[str, ...]]:
    """The chains a question may join INNER without changing its rows: the time column's
    (its range is in WHERE, and a NULL time is in no range), and those the required filters
    every metric shares reject (they are in WHERE too)."""
    for metric in metrics:
        if metric.time_via:
            yield metric.time_via
    first = metrics[0]
    if any(set(m.required_filters) != set(first.required_filters) for m in metrics):
        return
    for rule in first.required_filters:
        for predicate in _predicates(rule):
            yield from rejected_chains(predicate)


def _predicates(rule: RequiredFilter) -> tuple[Predicate, ...]:
    match rule:
        case FilterPredicate():
            return (rule.predicate,)
        case FilterEquals() | FilterNotEquals() | FilterIsTrue() | FilterIsNotNull():
            return ()
        case _:
            assert_never(rule)
