"""The raw shape of each catalog document kind, as written: every leaf is text.

These Structs only fix which keys exist (unknown keys are refused at every depth) and how they
nest. Closed vocabularies, names and one-of forms are checked afterwards by ``catalog_parse``,
which turns a raw document into the validated values of ``catalog``.
"""

import msgspec


class Raw(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base of every raw shape: unknown keys are refused."""


class RawColumn(Raw, frozen=True):
    """``{name, type?, description?}``."""

    name: str
    type: str | None = None
    description: str | None = None


class RawModel(Raw, frozen=True):
    """``kind: model``."""

    kind: str
    name: str
    source: str
    table: str
    columns: list[str | RawColumn]
    primary_key: str | None = None


class RawEqual(Raw, frozen=True):
    """``{origin, target}``."""

    origin: str
    target: str


class RawKey(Raw, frozen=True):
    """``{equal: {origin, target}}``."""

    equal: RawEqual


class RawRelationship(Raw, frozen=True):
    """``kind: relationship``."""

    kind: str
    name: str
    origin_model: str
    target_model: str
    keys: list[RawKey]
    join_type: str


class RawTerm(Raw, frozen=True):
    """``{aggregate, column}`` or ``{count_if}`` — exactly one form."""

    aggregate: str | None = None
    column: str | None = None
    count_if: str | None = None


class RawRatio(Raw, frozen=True):
    """``{numerator, denominator, zero_denominator}``."""

    numerator: RawTerm
    denominator: RawTerm
    zero_denominator: str


class RawMeasure(Raw, frozen=True):
    """``simple: <term>`` or ``ratio: {...}`` — exactly one form."""

    simple: RawTerm | None = None
    ratio: RawRatio | None = None


class RawColumnValue(Raw, frozen=True):
    """``{column, value}``."""

    column: str
    value: str


class RawColumnOnly(Raw, frozen=True):
    """``{column}``."""

    column: str


class RawFilter(Raw, frozen=True):
    """One required filter — exactly one of its four forms."""

    equals: RawColumnValue | None = None
    not_equals: RawColumnValue | None = None
    is_true: RawColumnOnly | None = None
    is_not_null: RawColumnOnly | None = None


class RawDimension(Raw, frozen=True):
    """``{name, column, via?, values?, description?}``."""

    name: str
    column: str
    via: str | list[str] | None = None
    values: list[str] | None = None
    description: str | None = None


class RawRange(Raw, frozen=True):
    """``{start, end}``: ISO dates, half-open."""

    start: str
    end: str


class RawAnchor(Raw, frozen=True):
    """``{range: {start, end}, value}``."""

    period: RawRange = msgspec.field(name="range")
    value: str


class RawMetric(Raw, frozen=True):
    """``kind: metric``."""

    kind: str
    name: str
    model: str
    measure: RawMeasure
    time_column: str
    grains: list[str]
    dimensions: list[RawDimension]
    required_filters: list[RawFilter] = msgspec.field(default_factory=list)
    anchor: RawAnchor | None = None
    audience: str = "open"
