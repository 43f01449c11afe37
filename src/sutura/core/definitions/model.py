"""The validated catalog: models, relationships and metrics as closed families of frozen values.

These are the shapes the compiler and the renderers read. They are built only from the
catalog's documents (:mod:`sutura.core.catalog.document`, one document at a time) and its checks
(:mod:`sutura.core.catalog.checks`, the whole catalog), which reject anything outside the closed
vocabulary.
"""

import datetime
import functools
import json
from collections.abc import Mapping
from enum import StrEnum
from typing import Protocol, TypeVar

import msgspec

from sutura.core.definitions.audience import OPEN, Audience
from sutura.core.definitions.knowledge import Knowledge
from sutura.core.expression.nodes import Column as ColumnNode
from sutura.core.expression.nodes import Expr, Predicate
from sutura.core.expression.types import Family
from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.grain import GRAIN_ORDER as GRAIN_ORDER
from sutura.core.nouns.grain import Grain as Grain


class Aggregate(StrEnum):
    """The aggregates a term may apply to a column or an expression.

    ``median`` and ``percentile`` are continuous (interpolated between the two nearest values)
    and, like ``avg``, do not add up across periods.
    """

    SUM = "sum"
    COUNT = "count"
    COUNT_DISTINCT = "count_distinct"
    MIN = "min"
    MAX = "max"
    AVG = "avg"
    MEDIAN = "median"
    PERCENTILE = "percentile"


class ZeroDenominator(StrEnum):
    """What a ratio does where its denominator is zero."""

    YIELDS_NULL = "yields_null"
    FAILS = "fails"


class DerivedOp(StrEnum):
    """How a derived metric combines its two referents, ``of: [first, second]``.

    ``ratio`` is first / second, ``difference`` first - second, ``sum`` first + second and
    ``product`` first * second.
    """

    RATIO = "ratio"
    DIFFERENCE = "difference"
    SUM = "sum"
    PRODUCT = "product"


class Column(Frozen, frozen=True):
    """A column of a model; ``type`` and ``description`` are optional author notes."""

    name: str
    type: str | None = None
    description: str | None = None


TablePath = tuple[str, ...]
"""A table as its source names it: the table's own name last, after its schema (and, before
that, its catalog or database) when given. Each part is one identifier, whatever it holds:
a dot inside a part is part of the name."""


def table_label(path: TablePath) -> str:
    """``path`` as sentences name it: its parts joined by dots, a part holding a dot or a
    double quote (or none at all) written as a JSON string, so the label reads back as exactly
    one path.

    >>> table_label(("orders",)), table_label(("sales", "orders")), table_label(("Sale Lines",))
    ('orders', 'sales.orders', 'Sale Lines')
    >>> table_label(("main.victim",)), table_label(("sales", "a.b"))
    ('"main.victim"', 'sales."a.b"')
    """
    return ".".join(
        json.dumps(part, ensure_ascii=False) if not part or "." in part or '"' in part else part
        for part in path
    )


class Dimension(Frozen, frozen=True):
    """A column, or an expression of a declared type, callers may group by and filter on;
    ``values``, when listed, are the only values a filter may compare with.

    Exactly one of ``column`` (with its ``via`` chain) and ``expression`` (with ``type``) is set;
    a column dimension takes its column's declared type (if any) when its metric is settled.
    """

    name: str
    column: str | None = None
    via: tuple[str, ...] = ()
    values: tuple[str, ...] | None = None
    description: str = ""
    expression: Expr | None = None
    type: Family | None = None
    shared_from: str | None = None
    """The model that declares the dimension for every metric reaching it (its ``via`` and
    expression then read from the metric's model, along the path to that model); None for a
    dimension the metric declares itself. Where a dimension is declared is not its meaning: no
    digest holds it."""

    @property
    def value(self) -> Expr:
        """What the dimension reads, as an expression (a column is one too)."""
        if self.expression is not None:
            return self.expression
        return ColumnNode(name=self.column or "", via=self.via)


class Model(Frozen, frozen=True, dict=True):
    """A table in a source; ``primary_key`` is one column, or several that are unique together.

    Looking a column up is a dictionary read: the index is built on first use and kept on the
    instance (``dict=True`` gives it room; the fields, equality and encoding are unchanged).
    """

    name: str
    source: str
    table: TablePath
    columns: tuple[Column, ...]
    primary_key: str | tuple[str, ...] | None = None
    authored_sql: str | None = None
    description: str = ""
    dimensions: tuple[Dimension, ...] = ()
    """Shared dimensions: declared once here, read from this model (``via`` starts here), and
    used by every metric whose model is this one or reaches it along relationships."""

    def has_column(self, name: str) -> bool:
        """Whether the model declares ``name``."""
        return name in self._columns

    def column(self, name: str) -> Column | None:
        """The column called ``name``, if the model declares it."""
        return self._columns.get(name)

    @functools.cached_property
    def _columns(self) -> dict[str, Column]:
        return _first_by_name(self.columns)

    @property
    def key_columns(self) -> tuple[str, ...]:
        """The columns of the primary key (none when the model declares none)."""
        key = self.primary_key
        if key is None:
            return ()
        return (key,) if isinstance(key, str) else key


class KeyPair(Frozen, frozen=True):
    """One equality of a join: origin column equals target column."""

    origin: str
    target: str


class Relationship(Frozen, frozen=True):
    """A many-to-one join from an origin model to a target model."""

    name: str
    origin_model: str
    target_model: str
    keys: tuple[KeyPair, ...]
    description: str = ""


class AggregateTerm(Frozen, tag="aggregate", frozen=True):
    """``{aggregate, column}``."""

    aggregate: Aggregate
    column: str


class CountIfTerm(Frozen, tag="count_if", frozen=True):
    """``{count_if: <boolean column>}``: rows where the column is true."""

    column: str


class ExpressionTerm(Frozen, tag="expression", frozen=True):
    """``{aggregate, of?, where?, fraction?}``: ``aggregate`` over the expression ``of`` (over
    rows when ``of`` is absent: ``count`` alone) on the rows where ``where`` holds.

    ``fraction`` is ``percentile``'s, a decimal between 0 and 1 (written without trailing
    zeros); every other aggregate has none. A term the older forms can write
    (``{aggregate, column}`` or ``{count_if}``) is always read as those forms.
    """

    aggregate: Aggregate
    of: Expr | None = None
    where: Predicate | None = None
    fraction: str | None = None


Term = AggregateTerm | CountIfTerm | ExpressionTerm


class SimpleMeasure(Frozen, tag="simple", frozen=True):
    """One term."""

    term: Term


class RatioMeasure(Frozen, tag="ratio", frozen=True):
    """numerator / denominator, with a declared behaviour at zero."""

    numerator: Term
    denominator: Term
    zero_denominator: ZeroDenominator


Measure = SimpleMeasure | RatioMeasure


class FilterEquals(Frozen, tag="equals", frozen=True):
    """``column = value``."""

    column: str
    value: str


class FilterNotEquals(Frozen, tag="not_equals", frozen=True):
    """``column IS DISTINCT FROM value``: a row whose column is NULL is kept (NULL is not it)."""

    column: str
    value: str


class FilterIsTrue(Frozen, tag="is_true", frozen=True):
    """``column IS TRUE``."""

    column: str


class FilterIsNotNull(Frozen, tag="is_not_null", frozen=True):
    """``column IS NOT NULL``."""

    column: str


class FilterPredicate(Frozen, tag="predicate", frozen=True):
    """Any predicate (``docs/catalog.md``); one the four forms above can write is read as them."""

    predicate: Predicate


RequiredFilter = FilterEquals | FilterNotEquals | FilterIsTrue | FilterIsNotNull | FilterPredicate


class TimeRule(StrEnum):
    """Which value of each entity a semi-additive measure takes in each period.

    ``last`` and ``first``: the entity's rows at the greatest (least) value of the time column
    within the period, every row at that instant; ``min`` and ``max``: the smallest (largest)
    value the measure's term reads among the entity's rows of the period.
    """

    MIN = "min"
    MAX = "max"
    FIRST = "first"
    LAST = "last"


class SemiAdditive(Frozen, frozen=True):
    """A measure that does not add up over time: in each period it is the value ``rule`` takes
    per entity (the rows that share the values of the ``entity`` columns of the metric's
    model), added up across entities and every other dimension (docs/semantics.md)."""

    rule: TimeRule
    entity: tuple[str, ...]


class Anchor(Frozen, frozen=True):
    """A known value over a known range, re-checked before anything is answered."""

    start: datetime.date
    end: datetime.date
    value: str


class Metric(Frozen, frozen=True):
    """A certified metric definition."""

    name: str
    model: str
    measure: Measure
    time_column: str
    grains: tuple[Grain, ...]
    dimensions: tuple[Dimension, ...] = ()
    required_filters: tuple[RequiredFilter, ...] = ()
    anchor: Anchor | None = None
    audience: Audience = OPEN
    authored_sql: str | None = None
    description: str = ""
    time_via: tuple[str, ...] = ()
    """The relationships from the metric's model to the model that holds ``time_column``."""
    semi_additive: SemiAdditive | None = None
    """Set when the measure does not add up over time (balances, active subscriptions)."""

    @property
    def time(self) -> ColumnNode:
        """The time column, as the column node it is."""
        return ColumnNode(name=self.time_column, via=self.time_via)

    def dimension(self, name: str) -> Dimension | None:
        """The dimension called ``name``, if the metric lists it."""
        return next((d for d in self.dimensions if d.name == name), None)

    @property
    def coarsest_grain(self) -> Grain:
        """The coarsest grain the metric lists (anchors are compared at it)."""
        return max(self.grains, key=GRAIN_ORDER.index)


class Derived(Frozen, frozen=True):
    """A certified metric computed from two other metrics, ``op`` applied to ``of``, then
    multiplied by ``scale`` when set.

    ``of`` names two metrics, each with a measure or derived itself (the derived metrics of a
    catalog refer to each other without a cycle, checked at load); the derived metric lists the
    grains and dimensions it may be asked at, each listed by both referents (checked at load).
    ``zero_denominator`` is set exactly for ``ratio``; ``scale`` is an exact decimal's text
    (``100`` for a percentage), never zero.
    """

    name: str
    op: DerivedOp
    of: tuple[str, str]
    grains: tuple[Grain, ...]
    dimensions: tuple[str, ...] = ()
    zero_denominator: ZeroDenominator | None = None
    audience: Audience = OPEN
    description: str = ""
    scale: str | None = None


class Catalog(Frozen, frozen=True, dict=True):
    """Every document of a catalog, validated together, sorted by name.

    Looking a name up is a dictionary read: each kind's index is built on first use and kept
    on the instance (``dict=True`` gives it room; the fields, equality and encoding are
    unchanged).
    """

    models: tuple[Model, ...]
    relationships: tuple[Relationship, ...]
    metrics: tuple[Metric, ...]
    knowledge: Knowledge = msgspec.field(default_factory=Knowledge)
    derived: tuple[Derived, ...] = ()

    def model(self, name: str) -> Model | None:
        """The model called ``name``."""
        return self._models.get(name)

    def relationship(self, name: str) -> Relationship | None:
        """The relationship called ``name``."""
        return self._relationships.get(name)

    def metric(self, name: str) -> Metric | None:
        """The metric called ``name``."""
        return self._metrics.get(name)

    def derived_metric(self, name: str) -> Derived | None:
        """The derived metric called ``name``."""
        return self._derived.get(name)

    def models_by_name(self) -> Mapping[str, Model]:
        """Every model by its name (the index :meth:`model` reads, built once)."""
        return self._models

    def relationships_by_name(self) -> Mapping[str, Relationship]:
        """Every relationship by its name (the index :meth:`relationship` reads, built once)."""
        return self._relationships

    @functools.cached_property
    def _derived(self) -> dict[str, Derived]:
        return _first_by_name(self.derived)

    @functools.cached_property
    def _models(self) -> dict[str, Model]:
        return _first_by_name(self.models)

    @functools.cached_property
    def _relationships(self) -> dict[str, Relationship]:
        return _first_by_name(self.relationships)

    @functools.cached_property
    def _metrics(self) -> dict[str, Metric]:
        return _first_by_name(self.metrics)


class _HasName(Protocol):
    @property
    def name(self) -> str: ...


_Named = TypeVar("_Named", bound=_HasName)


def _first_by_name(items: tuple[_Named, ...]) -> dict[str, _Named]:
    """Each name's first item (a catalog being checked may still hold a name twice)."""
    index: dict[str, _Named] = {}
    for item in items:
        index.setdefault(item.name, item)
    return index
