r"""The catalog as an agent sees it: one value, built once from the setting, rendered twice.

:meth:`CatalogView.of` reads ``prompt.catalog_prose`` once: it carries each description
through :class:`~sutura.core.catalog.prose.Carried` and resolves the boundary notice, so the
text half and the structured half cannot disagree about the operator's decision. The text half
is::

    <the boundary notice>
    metric: revenue
    grains: day, month
    > Revenue net of refunds.
    dimension: region (filterable)
    values:	EU	US
    > Where the customer is billed.
    dimension: channel (group by only)
    definitions: v7 (digest 3f2a)
    time zone: UTC

Names and values are escaped cells (lists are tab-separated), and every line of prose is
escaped and prefixed ``> `` (split on ``\n`` only; nothing stripped, normalised or cut).
"""

from collections.abc import Iterator
from dataclasses import dataclass

import msgspec
from returns.result import Failure, Result, Success

from sutura.core.base import Frozen
from sutura.core.catalog.model import Dimension, Grain, Metric
from sutura.core.catalog.pinned import PinnedDefinitions
from sutura.core.catalog.prose import NOT_CARRIED, Carried, CatalogProse, catalog_notice
from sutura.core.outcome.answer import MetricDigest
from sutura.core.outcome.refusal import Refusal, RefusalCode, refusal
from sutura.core.text.escape import escape_cell, escape_text, has_lone_surrogate


class CatalogWire(Frozen, frozen=True, omit_defaults=True):
    """Base of the structured catalog: absent optional fields are left out, not nulled."""


class CatalogProvenance(CatalogWire, frozen=True, kw_only=True, omit_defaults=True):
    """What the catalog is: the operator's version, the digest of its meaning, per metric."""

    definition_version: str
    definition_digest: str
    metric_digests: list[MetricDigest]
    time_zone: str


Description = Carried | msgspec.UnsetType
"""A description as a structured half holds it: carried prose, or absent (``UNSET``)."""


def _absent_unless_carried(value: "CatalogMetric | CatalogDimension") -> None:
    """Prose the setting did not carry is absent from the JSON, never ``null`` or empty."""
    if value.description is NOT_CARRIED:
        msgspec.structs.force_setattr(value, "description", msgspec.UNSET)


def prose_of(description: Description) -> str | None:
    """The text a description carries, or ``None`` when absent.

    >>> prose_of(msgspec.UNSET) is None, prose_of(Carried.under(CatalogProse.QUOTED, "x"))
    (True, 'x')
    """
    return description.text if isinstance(description, Carried) else None


class CatalogDimension(CatalogWire, frozen=True, kw_only=True, omit_defaults=True):
    """A dimension: filterable exactly when it lists ``allowed_values``."""

    name: str
    description: Description = msgspec.UNSET
    filterable: bool
    allowed_values: list[str] | msgspec.UnsetType = msgspec.UNSET

    def __post_init__(self) -> None:
        """Drop a description the setting did not carry."""
        _absent_unless_carried(self)


class CatalogMetric(CatalogWire, frozen=True, kw_only=True, omit_defaults=True):
    """A metric as an agent may ask for it."""

    name: str
    description: Description = msgspec.UNSET
    grains: list[Grain]
    dimensions: list[CatalogDimension]

    def __post_init__(self) -> None:
        """Drop a description the setting did not carry."""
        _absent_unless_carried(self)


class CatalogBody(CatalogWire, frozen=True, kw_only=True, omit_defaults=True):
    """The structured half; ``catalog_prose`` is the operator's own spelling of the setting."""

    provenance: CatalogProvenance
    catalog_prose: CatalogProse
    metrics: list[CatalogMetric]


def _dimension(dimension: Dimension, prose: CatalogProse) -> CatalogDimension:
    values = dimension.values
    return CatalogDimension(
        name=dimension.name,
        description=Carried.under(prose, dimension.description),
        filterable=values is not None,
        allowed_values=msgspec.UNSET if values is None else list(values),
    )


def _metric(metric: Metric, prose: CatalogProse) -> CatalogMetric:
    return CatalogMetric(
        name=metric.name,
        description=Carried.under(prose, metric.description),
        grains=list(metric.grains),
        dimensions=[_dimension(d, prose) for d in metric.dimensions],
    )


def _quoted(description: Description) -> list[str]:
    text = prose_of(description)
    return [f"> {escape_text(line)}" for line in text.split("\n")] if text else []


def _dimension_lines(dimension: CatalogDimension) -> list[str]:
    kind = "filterable" if dimension.filterable else "group by only"
    lines = [f"dimension: {escape_cell(dimension.name)} ({kind})"]
    if not isinstance(dimension.allowed_values, msgspec.UnsetType):
        lines.append("\t".join(["values:", *map(escape_cell, dimension.allowed_values)]))
    return lines + _quoted(dimension.description)


def _metric_lines(metric: CatalogMetric) -> list[str]:
    lines = [f"metric: {escape_cell(metric.name)}", f"grains: {', '.join(metric.grains)}"]
    lines += _quoted(metric.description)
    for dimension in metric.dimensions:
        lines += _dimension_lines(dimension)
    return lines


def _texts(body: CatalogBody) -> Iterator[str]:
    """Every string of the body an author or operator chose."""
    provenance = body.provenance
    yield provenance.definition_version
    yield provenance.definition_digest
    yield provenance.time_zone
    for digest in provenance.metric_digests:
        yield from (digest.metric, digest.digest)
    for metric in body.metrics:
        yield from (metric.name, prose_of(metric.description) or "")
        for dimension in metric.dimensions:
            yield from (dimension.name, prose_of(dimension.description) or "")
            if not isinstance(dimension.allowed_values, msgspec.UnsetType):
                yield from dimension.allowed_values


@dataclass(frozen=True, slots=True)
class CatalogView:
    """The catalog under one setting: its boundary notice and its structured body."""

    notice: str
    body: CatalogBody

    @classmethod
    def of(cls, pinned: PinnedDefinitions, prose: CatalogProse) -> "CatalogView":
        """Build the view; the only place the catalog meets the prose setting.

        >>> from sutura.core.catalog.model import Catalog
        >>> pinned = PinnedDefinitions(time_zone="UTC", version="v1", digest="ab",
        ...     metric_digests={},
        ...     catalog=Catalog(models=(), relationships=(), metrics=()))
        >>> view = CatalogView.of(pinned, CatalogProse.OMITTED)
        >>> view.body.catalog_prose, view.notice == catalog_notice(CatalogProse.OMITTED)
        (<CatalogProse.OMITTED: 'omitted'>, True)
        """
        provenance = CatalogProvenance(
            definition_version=pinned.version,
            definition_digest=pinned.digest,
            metric_digests=[
                MetricDigest(metric=name, digest=digest)
                for name, digest in pinned.metric_digests.items()
            ],
            time_zone=pinned.time_zone,
        )
        metrics = [_metric(metric, prose) for metric in pinned.catalog.metrics]
        body = CatalogBody(provenance=provenance, catalog_prose=prose, metrics=metrics)
        return cls(notice=catalog_notice(prose), body=body)

    def lines(self) -> list[str]:
        """The text half's lines, total: a lone surrogate shows as its escape (for the prompt)."""
        provenance = self.body.provenance
        lines = [self.notice]
        for metric in self.body.metrics:
            lines += _metric_lines(metric)
        version = escape_cell(provenance.definition_version)
        lines.append(f"definitions: {version} (digest {escape_cell(provenance.definition_digest)})")
        lines.append(f"time zone: {escape_cell(provenance.time_zone)}")
        return lines

    def text(self) -> Result[str, Refusal]:
        """The text half: notice, metrics, definitions line; refused on a lone surrogate.

        The structured half (``body``) is refused by the codec for the same value, so a reply
        carries both halves or neither.
        """
        if any(map(has_lone_surrogate, _texts(self.body))):
            return Failure(refusal(RefusalCode.VALUE_NOT_REPRESENTABLE))
        return Success("\n".join(self.lines()))
