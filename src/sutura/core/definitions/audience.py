"""Who a metric is for: ``audience: open`` or ``audience: {restricted: [ids]}``.

Every metric document says it (the key is required); the audience is part of the metric's
meaning and enters the digest. No surface lists it to agents. A caller belongs to audience ids
(``Caller.audiences``); :func:`admits` is the one rule that decides whether a caller who
belongs to ``member_of`` may see a metric, and the per-caller view of the catalog is derived
from it.

>>> admits(OPEN, frozenset()), admits(Restricted(ids=("finance",)), frozenset({"sales"}))
(True, False)
>>> admits(Restricted(ids=("finance", "board")), frozenset({"board"}))
True
"""

from typing import Final, assert_never

from sutura.core.nouns.frozen import Frozen


class Open(Frozen, tag="open", tag_field="kind", frozen=True):
    """Every caller may see the metric."""


class Restricted(Frozen, tag="restricted", tag_field="kind", frozen=True):
    """Only callers in one of ``ids`` may see the metric (sorted, each once)."""

    ids: tuple[str, ...]


Audience = Open | Restricted

OPEN: Final = Open()


def admits(audience: Audience, member_of: frozenset[str]) -> bool:
    """Whether a caller in the audience ids ``member_of`` may see a metric for ``audience``."""
    match audience:
        case Open():
            return True
        case Restricted():
            return not member_of.isdisjoint(audience.ids)
        case _:
            assert_never(audience)


def canonical_audience(audience: Audience) -> object:
    """The audience as the digest reads it: ``"open"``, or ``{"restricted": [ids]}``.

    The spelling of a document, so that a catalog of open metrics keeps the digest it had
    before audiences were closed values.

    >>> canonical_audience(OPEN), canonical_audience(Restricted(ids=("a", "b")))
    ('open', {'restricted': ['a', 'b']})
    """
    match audience:
        case Open():
            return "open"
        case Restricted():
            return {"restricted": sorted(audience.ids)}
        case _:
            assert_never(audience)
