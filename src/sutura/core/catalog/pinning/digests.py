"""Pinning: the canonical form of a catalog's meaning, and its SHA-256 digests.

The canonical form is deterministic msgspec JSON of what the catalog *means*: names, sources,
tables, columns (with their declared types), keys, measures, required filters, grains,
dimensions, allowed values, anchors, audiences, authored SQL, and the meaning of every
knowledge document (``knowledge_meaning``). Prose (every ``description``, every body) is left out,
and so is everything the author's files add around the meaning — file names and order, key
order, whitespace, comments — because the parsed catalog does not hold them. Lists whose
order means nothing (columns, join keys, grains, required filters, dimensions, allowed values)
are put in one fixed order; a ``via`` chain keeps its order, which is its meaning.

>>> from sutura.core.definitions.model import Catalog
>>> canonical_form(Catalog(models=(), relationships=(), metrics=()), "UTC")
b'{"canonical_form":3,"metrics":[],"models":[],"relationships":[],"time_zone":"UTC"}'
"""

import hashlib
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import msgspec

from sutura.core.catalog.checks.paths import via_paths
from sutura.core.catalog.pinning.knowledge import knowledge_meaning
from sutura.core.definitions.audience import canonical_audience
from sutura.core.definitions.model import (
    GRAIN_ORDER,
    Catalog,
    Derived,
    Metric,
    Model,
    Relationship,
)
from sutura.core.definitions.pinned import PinnedDefinitions

# The version names the semantics the definitions are answered under (docs/semantics.md), so
# that answers computed differently never carry the same digest. 2: NULL-safe not_equals, the
# groups a question with several metrics keeps, fails-ratios refusing an empty denominator, and
# the time zone periods are counted in. 3: one rule for zero and NULL in ratios (a derived
# ratio's NULL second metric is a zero denominator; a prior at a zero denominator is NULL),
# and CHAR(n) values answered without their padding.
CANONICAL_FORM_VERSION = 3

_encoder = msgspec.json.Encoder(order="sorted")
_Meant = TypeVar("_Meant", Model, Relationship, Metric)


def canonical_form(catalog: Catalog, time_zone: str) -> bytes:
    """The catalog's meaning as deterministic JSON bytes (keys sorted, prose left out)."""
    return _canonical_form(catalog, time_zone, _Meanings())


def _canonical_form(catalog: Catalog, time_zone: str, meanings: "_Meanings") -> bytes:
    meaning: dict[str, Any] = {
        "canonical_form": CANONICAL_FORM_VERSION,
        "time_zone": time_zone,
        "models": [meanings.model(m) for m in sorted(catalog.models, key=_by_name)],
        "relationships": [
            meanings.relationship(r) for r in sorted(catalog.relationships, key=_by_name)
        ],
        "metrics": [meanings.metric(m) for m in sorted(catalog.metrics, key=_by_name)],
    }
    if not catalog.knowledge.empty:  # a catalog without knowledge keeps the digest it had
        meaning["knowledge"] = knowledge_meaning(catalog.knowledge)
    if catalog.derived:  # a catalog without derived metrics keeps the digest it had
        meaning["derived"] = [_derived(d) for d in sorted(catalog.derived, key=_by_name)]
    return _encoder.encode(meaning)


def derived_canonical_form(catalog: Catalog, derived: Derived, time_zone: str) -> bytes:
    """A derived metric's meaning together with each referent's whole canonical form: a
    metric's with the models and relationships it reads, a derived metric's with its own
    referents', down its whole tree.

    Changing anything a referent's answer depends on (its measure, filters, model, joins, an
    inner derived metric's op or scale) moves the derived metric's digest.
    """
    referents: list[Any] = []
    for name in derived.of:
        metric = catalog.metric(name)
        inner = catalog.derived_metric(name)
        if metric is not None:
            referents.append(msgspec.json.decode(metric_canonical_form(catalog, metric, time_zone)))
        elif inner is not None:
            referents.append(msgspec.json.decode(derived_canonical_form(catalog, inner, time_zone)))
    return _encoder.encode(
        {
            "canonical_form": CANONICAL_FORM_VERSION,
            "derived": _derived(derived),
            "time_zone": time_zone,
            "referents": referents,
        }
    )


def metric_canonical_form(catalog: Catalog, metric: Metric, time_zone: str) -> bytes:
    """One metric's meaning together with the models and relationships it reads."""
    return _metric_canonical_form(catalog, metric, time_zone, _Meanings())


def _metric_canonical_form(
    catalog: Catalog, metric: Metric, time_zone: str, meanings: "_Meanings"
) -> bytes:
    relationship_names = sorted({name for chain in via_paths(metric) for name in chain})
    relationships = [r for r in (catalog.relationship(n) for n in relationship_names) if r]
    model_names = sorted({metric.model, *(r.target_model for r in relationships)})
    models = [m for m in (catalog.model(n) for n in model_names) if m]
    return _encoder.encode(
        {
            "canonical_form": CANONICAL_FORM_VERSION,
            "metric": meanings.metric(metric),
            "time_zone": time_zone,
            "models": [meanings.model(m) for m in models],
            "relationships": [meanings.relationship(r) for r in relationships],
        }
    )


class _Meanings:
    """Each model's, relationship's and metric's meaning, made and encoded once however many
    digests it enters (a shared model enters the digest of every metric that reads it): the
    encoded bytes are spliced into each canonical form that holds them (``msgspec.Raw``), which
    encodes exactly as the meaning itself would (the same encoder, keys sorted)."""

    def __init__(self) -> None:
        self._made: dict[int, tuple[object, msgspec.Raw]] = {}

    def model(self, model: Model) -> msgspec.Raw:
        return self._once(model, _model)

    def relationship(self, relationship: Relationship) -> msgspec.Raw:
        return self._once(relationship, _relationship)

    def metric(self, metric: Metric) -> msgspec.Raw:
        return self._once(metric, _metric)

    def _once(self, value: _Meant, make: Callable[[_Meant], dict[str, Any]]) -> msgspec.Raw:
        made = self._made.get(id(value))
        if made is None:  # the value is held beside its meaning, so its id is not reused
            made = self._made[id(value)] = (value, msgspec.Raw(_encoder.encode(make(value))))
        return made[1]


def pin(catalog: Catalog, version: str, time_zone: str) -> PinnedDefinitions:
    """Pin a checked catalog under the operator's ``version`` label.

    Args:
        catalog: the catalog, as ``check_catalog`` built it.
        version: the operator's label (``catalog.version``); it does not enter any digest.
        time_zone: the zone periods are counted in (``catalog.time_zone``); it enters every
            digest, as it changes which rows a period holds.

    Returns:
        The pinned definitions: the catalog digest and one digest per metric.
    """
    meanings = _Meanings()
    return PinnedDefinitions(
        version=version,
        digest=_sha256(_canonical_form(catalog, time_zone, meanings)),
        metric_digests={
            m.name: _sha256(_metric_canonical_form(catalog, m, time_zone, meanings))
            for m in sorted(catalog.metrics, key=_by_name)
        }
        | {
            d.name: _sha256(derived_canonical_form(catalog, d, time_zone))
            for d in sorted(catalog.derived, key=_by_name)
        },
        time_zone=time_zone,
        catalog=catalog,
    )


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _by_name(value: Model | Relationship | Metric | Derived) -> str:
    return value.name


def _model(model: Model) -> dict[str, Any]:
    meaning = _without_absent_sql(_builtins(model))
    # One name without a dot keeps the spelling it had when a table was text split at its
    # dots; any other path is a list, so no two meanings share a form.
    (only,) = model.table if len(model.table) == 1 else ("",)
    if only and "." not in only:
        meaning["table"] = only
    meaning["columns"] = _sorted_set(_without_prose(c) for c in meaning["columns"])
    # Shared dimensions mean something only in the metrics that use them, whose meaning holds
    # each one resolved (so declaring a dimension once or on each metric is one meaning).
    del meaning["dimensions"]
    return meaning


def _relationship(relationship: Relationship) -> dict[str, Any]:
    meaning = _builtins(relationship)
    meaning["keys"] = _sorted_set(meaning["keys"])
    return meaning


def _metric(metric: Metric) -> dict[str, Any]:
    meaning = _without_absent_sql(_builtins(metric))
    meaning["audience"] = canonical_audience(metric.audience)
    meaning["grains"] = [g.value for g in GRAIN_ORDER if g in metric.grains]
    meaning["required_filters"] = _sorted_set(meaning["required_filters"])
    if not metric.time_via:  # a time column of the metric's own model: the meaning it had
        del meaning["time_via"]
    if metric.semi_additive is None:  # a measure that adds up over time: the meaning it had
        del meaning["semi_additive"]
    dimensions = []
    for dimension in meaning["dimensions"]:
        if dimension["values"] is not None:
            dimension["values"] = sorted(dimension["values"])
        dimensions.append(_dimension(_without_prose(dimension)))
    meaning["dimensions"] = _sorted_set(dimensions)
    return meaning


def _dimension(meaning: dict[str, Any]) -> dict[str, Any]:
    """A column dimension as it always read; an expression dimension without the column keys;
    neither says where it is declared (on the metric, or shared by a model)."""
    written = ("expression", "type") if meaning["expression"] is None else ("column", "via")
    absent = (*written, "shared_from")
    return {key: value for key, value in meaning.items() if key not in absent}


def _derived(derived: Derived) -> dict[str, Any]:
    meaning = _builtins(derived)
    meaning["audience"] = canonical_audience(derived.audience)
    meaning["grains"] = [g.value for g in GRAIN_ORDER if g in derived.grains]
    meaning["dimensions"] = sorted(derived.dimensions)
    if derived.scale is None:  # a derived metric without a scale keeps the digest it had
        del meaning["scale"]
    return meaning


def _builtins(value: Model | Relationship | Metric | Derived) -> dict[str, Any]:
    """``value`` as plain JSON values, every field spelled out, without its own description."""
    meaning = msgspec.to_builtins(value)
    assert isinstance(meaning, dict)  # a Struct becomes a dict
    return _without_prose(meaning)


def _without_prose(meaning: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in meaning.items() if key != "description"}


def _without_absent_sql(meaning: dict[str, Any]) -> dict[str, Any]:
    """``authored_sql`` enters the meaning only when written (its absence moves no digest)."""
    if meaning["authored_sql"] is None:
        del meaning["authored_sql"]
    return meaning


def _sorted_set(items: Iterable[Any]) -> list[Any]:
    """Items whose order carries no meaning (columns, keys, filters, dimensions), in one order."""
    return sorted(items, key=_encoder.encode)
