"""Pinned definitions: the catalog loaded once, validated and canonicalised, with its digests."""

from sutura.core.definitions.model import Catalog
from sutura.core.nouns.frozen import Frozen


class PinnedDefinitions(Frozen, frozen=True):
    """The catalog as served: an operator version, a digest of its meaning, per-metric digests.

    ``definition_digest`` is the SHA-256 hex of the canonical form of the whole catalog;
    ``metric_digests`` maps each metric's name to the SHA-256 hex of its own canonical form
    (its definition plus the models and relationships it reads). ``time_zone`` is the zone
    every period is counted in (``catalog.time_zone``); it is part of the meaning, so it enters
    the digest.
    """

    version: str
    digest: str
    time_zone: str
    metric_digests: dict[str, str]
    catalog: Catalog
