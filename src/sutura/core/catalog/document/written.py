"""The shape of each catalog document kind as written: every leaf is text.

These Structs only fix which keys exist (unknown keys are refused at every depth) and how they
nest. Closed vocabularies, names and one-of forms are checked afterwards by
:func:`~sutura.core.catalog.document.parse.parse_document`, which turns a written document into
the validated values of :mod:`sutura.core.definitions.model`.
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
    table: str | list[str]
    columns: list[str | WrittenColumn]
    primary_key: str | list[str] | None = None
    authored_sql: str | None = None
    dimensions: "list[WrittenDimension]" = msgspec.field(default_factory=list)


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


WrittenValue = "WrittenExpression | str"
"""An expression: a mapping with one key naming its kind, or a bare constant."""


class WrittenBranch(Frozen, frozen=True):
    """One item of ``case``: ``{when, then}``, or ``{else}`` last."""

    when: "WrittenPredicate | None" = None
    then: "WrittenExpression | str | None" = None
    otherwise: "WrittenExpression | str | None" = msgspec.field(default=None, name="else")


class WrittenBuckets(Frozen, frozen=True):
    """``{of, edges, labels}``."""

    of: "WrittenExpression | str"
    edges: list[str]
    labels: list[str]


class WrittenExpression(Frozen, frozen=True):
    """An expression node: exactly one key naming its kind (``via`` goes with ``column``)."""

    column: str | None = None
    via: str | list[str] | None = None
    number: str | None = None
    text: str | None = None
    date: str | None = None
    timestamp: str | None = None
    boolean: str | None = None
    add: "list[WrittenExpression | str] | None" = None
    subtract: "list[WrittenExpression | str] | None" = None
    multiply: "list[WrittenExpression | str] | None" = None
    divide: "list[WrittenExpression | str] | None" = None
    negate: "WrittenExpression | str | None" = None
    coalesce: "list[WrittenExpression | str] | None" = None
    case: list[WrittenBranch] | None = None
    year: "WrittenExpression | str | None" = None
    quarter: "WrittenExpression | str | None" = None
    month: "WrittenExpression | str | None" = None
    month_of_year: "WrittenExpression | str | None" = None
    iso_week: "WrittenExpression | str | None" = None
    day_of_week: "WrittenExpression | str | None" = None
    day_of_month: "WrittenExpression | str | None" = None
    hour_of_day: "WrittenExpression | str | None" = None
    date_of: "WrittenExpression | str | None" = None
    buckets: WrittenBuckets | None = None


class WrittenColumnValue(Frozen, frozen=True):
    """``{column, value}``: the older spelling of ``equals`` and ``not_equals``."""

    column: str
    value: str


class WrittenPredicate(Frozen, frozen=True):
    """A predicate node: exactly one key naming its kind."""

    equals: "list[WrittenExpression | str] | WrittenColumnValue | None" = None
    not_equals: "list[WrittenExpression | str] | WrittenColumnValue | None" = None
    less_than: "list[WrittenExpression | str] | None" = None
    at_most: "list[WrittenExpression | str] | None" = None
    greater_than: "list[WrittenExpression | str] | None" = None
    at_least: "list[WrittenExpression | str] | None" = None
    between: "list[WrittenExpression | str] | None" = None
    is_in: "list[WrittenExpression | str | list[WrittenExpression | str]] | None" = msgspec.field(
        default=None, name="in"
    )
    not_in: "list[WrittenExpression | str | list[WrittenExpression | str]] | None" = None
    is_null: "WrittenExpression | str | None" = None
    is_not_null: "WrittenExpression | str | None" = None
    is_true: "WrittenExpression | str | None" = None
    starts_with: "list[WrittenExpression | str] | None" = None
    all_of: "list[WrittenPredicate] | None" = msgspec.field(default=None, name="and")
    any_of: "list[WrittenPredicate] | None" = msgspec.field(default=None, name="or")
    negated: "WrittenPredicate | None" = msgspec.field(default=None, name="not")


class WrittenTerm(Frozen, frozen=True):
    """``{aggregate, of?, where?, fraction?}``, or the older ``{aggregate, column}`` or
    ``{count_if}``."""

    aggregate: str | None = None
    column: str | None = None
    count_if: str | None = None
    of: WrittenExpression | str | None = None
    where: WrittenPredicate | None = None
    fraction: str | None = None


class WrittenRatio(Frozen, frozen=True):
    """``{numerator, denominator, zero_denominator}``."""

    numerator: WrittenTerm
    denominator: WrittenTerm
    zero_denominator: str


class WrittenMeasure(Frozen, frozen=True):
    """``simple: <term>`` or ``ratio: {...}`` — exactly one form."""

    simple: WrittenTerm | None = None
    ratio: WrittenRatio | None = None


class WrittenDimension(Frozen, frozen=True):
    """``{name, column, via?, values?, description?}`` or ``{name, expression, type, values?,
    description?}``."""

    name: str
    column: str | None = None
    via: str | list[str] | None = None
    values: list[str] | None = None
    description: str | None = None
    expression: WrittenExpression | str | None = None
    type: str | None = None


class WrittenTimeColumn(Frozen, frozen=True):
    """``{column, via?}``: a time column, on the metric's model or reached along ``via``."""

    column: str
    via: str | list[str] | None = None


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
    time_column: str | WrittenTimeColumn
    grains: list[str]
    dimensions: list[str | WrittenDimension] | None = None
    required_filters: list[WrittenPredicate] = msgspec.field(default_factory=list)
    anchor: WrittenAnchor | None = None
    audience: str | WrittenRestricted
    authored_sql: str | None = None
    semi_additive: "WrittenSemiAdditive | None" = None


class WrittenSemiAdditive(Frozen, frozen=True, kw_only=True):
    """``{rule: last | first | min | max, entity: <column> | [columns]}``."""

    rule: str
    entity: str | list[str]


class WrittenDerived(Frozen, frozen=True, kw_only=True):
    """``{op, of: [first, second], zero_denominator?, scale?}``."""

    op: str
    of: list[str]
    zero_denominator: str | None = None
    scale: str | None = None


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
