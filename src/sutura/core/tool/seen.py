"""The catalog as one caller sees it: derived from the pinned definitions, never reloaded.

A caller sees a metric that is open, or restricted to an audience the caller belongs to
(:func:`~sutura.core.definitions.audience.admits`); knowledge follows the metrics it concerns
(:meth:`~sutura.core.definitions.knowledge.Knowledge.following`). A hidden metric is simply not
in the view, so every path that looks a metric up answers it exactly as it answers a metric
that does not exist. Models and relationships are never listed to a caller and stay. The
digest stays the whole catalog's: the view is of those definitions, not new ones.

Tested in ``tests/core/tool/test_seen.py``.
"""

from typing import assert_never

import msgspec

from sutura.core.definitions.audience import admits
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.tool.caller import Audiences, EveryAudience


def seen_by(pinned: PinnedDefinitions, audiences: Audiences) -> PinnedDefinitions:
    """The definitions a caller in ``audiences`` sees."""
    match audiences:
        case EveryAudience.EVERY:
            return pinned
        case frozenset():
            return _restricted_to(pinned, audiences)
        case _:
            assert_never(audiences)


def _restricted_to(pinned: PinnedDefinitions, audiences: frozenset[str]) -> PinnedDefinitions:
    catalog = pinned.catalog
    metrics = tuple(m for m in catalog.metrics if admits(m.audience, audiences))
    derived = tuple(d for d in catalog.derived if admits(d.audience, audiences))
    if len(metrics) == len(catalog.metrics) and len(derived) == len(catalog.derived):
        return pinned
    names = frozenset(m.name for m in metrics) | frozenset(d.name for d in derived)
    seen = msgspec.structs.replace(
        catalog, metrics=metrics, derived=derived, knowledge=catalog.knowledge.following(names)
    )
    digests = {name: d for name, d in pinned.metric_digests.items() if name in names}
    return msgspec.structs.replace(pinned, catalog=seen, metric_digests=digests)
