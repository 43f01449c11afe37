"""The validated catalog: models, relationships and metrics as closed families of frozen values.

These are the shapes the compiler and the renderers read. They are built only by
``catalog_parse`` (one document) and ``catalog_check`` (the whole catalog), which reject
anything outside the closed vocabulary.
"""

import datetime
import functools
from enum import StrEnum
from typing import Protocol, TypeVar

import msgspec

from sutura.core.definitions.audience import OPEN, Audience
from sutura.core.definitions.knowledge import Knowledge
from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.grain import GRAIN_ORDER as GRAIN_ORDER
from sutura.core.nouns.grain import Grain as Grain


class Aggregate(StrEnum):
    """The aggregates a term may apply to a column."""

    SUM = "sum"
    COUNT = "count"
    COUNT_DISTINCT = "count_distinct"
    MIN = "min"
    MAX = "max"
    AVG = "avg"


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


class Model(Frozen, frozen=True):
    """A table in a source."""

    name: str
    source: str
    table: str
    columns: tuple[Column, ...]
    primary_key: str | None = None
    authored_sql: str | None = None
    description: str = ""

    def has_column(self, name: str) -> bool:
        """Whether the model declares ``name``."""
        return any(c.name == name for c in self.columns)


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


Term = AggregateTerm | CountIfTerm


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


RequiredFilter = FilterEquals | FilterNotEquals | FilterIsTrue | FilterIsNotNull


class Dimension(Frozen, frozen=True):
    """A column callers may group by; with ``values`` it may also be filtered on."""

    name: str
    column: str
    via: tuple[str, ...] = ()
    values: tuple[str, ...] | None = None
    description: str = ""

    @property
    def filterable(self) -> bool:
        """A dimension is filterable exactly when it lists its allowed values."""
        return self.values is not None


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

    def dimension(self, name: str) -> Dimension | None:
        """The dimension called ``name``, if the metric lists it."""
        return next((d for d in self.dimensions if d.name == name), None)

    @property
    def coarsest_grain(self) -> Grain:
        """The coarsest grain the metric lists (anchors are compared at it)."""
        return max(self.grains, key=GRAIN_ORDER.index)


class Derived(Frozen, frozen=True):
    """A certified metric computed from two other metrics, ``op`` applied to ``of``.

    ``of`` names two metrics that are not derived themselves; the derived metric lists the
    grains and dimensions it may be asked at, each listed by both referents (checked at load).
    ``zero_denominator`` is set exactly for ``ratio``.
    """

    name: str
    op: DerivedOp
    of: tuple[str, str]
    grains: tuple[Grain, ...]
    dimensions: tuple[str, ...] = ()
    zero_denominator: ZeroDenominator | None = None
    audience: Audience = OPEN
    description: str = ""


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
