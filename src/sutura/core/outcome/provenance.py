"""Provenance: what an answer was computed from, built from the pinned definitions."""

from collections.abc import Iterable

from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.answer import ExecutedAs, MetricDigest, Provenance


def provenance_for(
    pinned: PinnedDefinitions,
    metrics: Iterable[str],
    executed_as: Iterable[ExecutedAs],
    ranges: Iterable[str] = (),
    *,
    computed_at: str = "",
    range_asked: str = "",
) -> Provenance:
    """The provenance of an answer about ``metrics``, read from the listed sources.

    >>> from sutura.core.definitions.model import Catalog
    >>> pinned = PinnedDefinitions(version="v1", digest="ab", metric_digests={"m": "cd"},
    ...     time_zone="UTC",
    ...     catalog=Catalog(models=(), relationships=(), metrics=()))
    >>> read = [ExecutedAs(source="main", posture="shared-service-user")]
    >>> p = provenance_for(pinned, ["m"], read)
    >>> (p.definition_version, p.metric_digests[0].digest)
    ('v1', 'cd')
    """
    return Provenance(
        definition_version=pinned.version,
        definition_digest=pinned.digest,
        metric_digests=[MetricDigest(metric=m, digest=pinned.metric_digests[m]) for m in metrics],
        time_zone=pinned.time_zone,
        executed_as=list(executed_as),
        ranges=list(ranges),
        computed_at=computed_at,
        range_asked=range_asked,
    )
