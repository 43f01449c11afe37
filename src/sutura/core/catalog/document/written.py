"""The shape of each catalog document kind as written: every leaf is text.

These Structs only fix which keys exist (unknown keys are refused at every depth) and how they
nest. Closed vocabularies, names and one-of forms are checked afterwards by ``catalog_parse``,
which turns a written document into the validated values of ``catalog``.
"""

from typing import Any

import msgspec

from sutura.core.nouns.frozen import Frozen


class WrittenColumn(Frozen, frozen=True):
    """``{name, type?, description?}``."""

    name: str
    type: str | None = None
    description: str | None = None


class WrittenModel(Frozen, frozen=True):
    """``kind: model``."""

    kind: str
    name: str
    source: str
    table: str
    columns: list[str | WrittenColumn]
    primary_key: str | None = None
    authored_sql: str | None = None


class WrittenEqual(Frozen, frozen=True):
    """``{origin, target}``."""

    origin: str
    target: str


class WrittenKey(Frozen, frozen=True):
    """``{equal: {origin, target}}``."""

    equal: WrittenEqual


class WrittenRelationship(Frozen, frozen=True):
    """``kind: relationship``."""

    kind: str
    name: str
    origin_model: str
    target_model: str
    keys: list[WrittenKey]
    join_type: str


class WrittenTerm(Frozen, frozen=True):
    """``{aggregate, column}`` or ``{count_if}`` — exactly one form."""

    aggregate: str | None = None
    column: str | None = None
    count_if: str | None = None


class WrittenRatio(Frozen, frozen=True):
    """``{numerator, denominator, zero_denominator}``."""

    numerator: WrittenTerm
    denominator: WrittenTerm
    zero_denominator: str


class WrittenMeasure(Frozen, frozen=True):
    """``simple: <term>`` or ``ratio: {...}`` — exactly one form."""

    simple: WrittenTerm | None = None
    ratio: WrittenRatio | None = None


class WrittenColumnValue(Frozen, frozen=True):
    """``{column, value}``."""

    column: str
    value: str


class WrittenColumnOnly(Frozen, frozen=True):
    """``{column}``."""

    column: str


class WrittenFilter(Frozen, frozen=True):
    """One required filter — exactly one of its four forms."""

    equals: WrittenColumnValue | None = None
    not_equals: WrittenColumnValue | None = None
    is_true: WrittenColumnOnly | None = None
    is_not_null: WrittenColumnOnly | None = None


class WrittenDimension(Frozen, frozen=True):
    """``{name, column, via?, values?, description?}``."""

    name: str
    column: str
    via: str | list[str] | None = None
    values: list[str] | None = None
    description: str | None = None


class WrittenRange(Frozen, frozen=True):
    """``{start, end}``: ISO dates, half-open."""

    start: str
    end: str


class WrittenAnchor(Frozen, frozen=True):
    """``{range: {start, end}, value}``."""

    period: WrittenRange = msgspec.field(name="range")
    value: str


class WrittenRestricted(Frozen, frozen=True):
    """``{restricted: [audience ids]}``."""

    restricted: list[str]


class WrittenMetric(Frozen, frozen=True, kw_only=True):
    """``kind: metric``."""

    kind: str
    name: str
    model: str
    measure: WrittenMeasure
    time_column: str
    grains: list[str]
    dimensions: list[WrittenDimension]
    required_filters: list[WrittenFilter] = msgspec.field(default_factory=list)
    anchor: WrittenAnchor | None = None
    audience: str | WrittenRestricted
    authored_sql: str | None = None


class WrittenDerived(Frozen, frozen=True, kw_only=True):
    """``{op, of: [first, second], zero_denominator?}``."""

    op: str
    of: list[str]
    zero_denominator: str | None = None


class WrittenDerivedMetric(Frozen, frozen=True, kw_only=True):
    """``kind: metric`` with ``derived:`` (no model, measure or time column of its own)."""

    kind: str
    name: str
    derived: WrittenDerived
    grains: list[str]
    dimensions: list[str] = msgspec.field(default_factory=list)
    audience: str | WrittenRestricted


class WrittenMeans(Frozen, frozen=True):
    """``{metric}`` or ``{metric, dimension, value}``."""

    metric: str
    dimension: str | None = None
    value: str | None = None


class WrittenGlossary(Frozen, frozen=True, kw_only=True):
    """``kind: glossary``."""

    kind: str
    term: str
    synonyms: list[str] = msgspec.field(default_factory=list)
    means: WrittenMeans


class WrittenAbout(Frozen, frozen=True):
    """``{metric}``: one metric a caveat is about."""

    metric: str


class WrittenCaveat(Frozen, frozen=True):
    """``kind: caveat``."""

    kind: str
    name: str
    about: list[WrittenAbout]


class WrittenNotDefined(Frozen, frozen=True):
    """``kind: not_defined``."""

    kind: str
    phrase: str
    synonyms: list[str] = msgspec.field(default_factory=list)


class WrittenExample(Frozen, frozen=True):
    """``kind: example``; ``question`` is decoded by the question's own decoder."""

    kind: str
    name: str
    asked: list[str]
    question: dict[str, Any]
