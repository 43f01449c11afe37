"""A caller's view of the pinned catalog: metrics by audience, knowledge following them."""

import msgspec

from sutura.core.definitions.audience import Restricted
from sutura.core.definitions.model import Derived, DerivedOp
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.tool.caller import EveryAudience
from sutura.core.tool.seen import seen_by
from tests.core.sample_catalog import PINNED


def _restricted(pinned: PinnedDefinitions, name: str, ids: tuple[str, ...]) -> PinnedDefinitions:
    metrics = tuple(
        msgspec.structs.replace(m, audience=Restricted(ids=ids)) if m.name == name else m
        for m in pinned.catalog.metrics
    )
    catalog = msgspec.structs.replace(pinned.catalog, metrics=metrics)
    return msgspec.structs.replace(pinned, catalog=catalog)


def test_a_caller_of_every_audience_sees_the_pinned_catalog_itself() -> None:
    assert seen_by(PINNED, EveryAudience.EVERY) is PINNED


def test_an_open_catalog_is_seen_whole_by_anyone() -> None:
    assert seen_by(PINNED, frozenset()) is PINNED


def test_a_restricted_metric_is_seen_only_by_its_audience_and_the_digest_stays() -> None:
    hidden = PINNED.catalog.metrics[0].name
    pinned = _restricted(PINNED, hidden, ("finance",))
    outside = seen_by(pinned, frozenset({"sales"}))
    inside = seen_by(pinned, frozenset({"finance", "sales"}))
    assert outside.catalog.metric(hidden) is None and hidden not in outside.metric_digests
    assert inside.catalog.metric(hidden) is not None
    assert outside.digest == inside.digest == pinned.digest
    assert outside.catalog.models == pinned.catalog.models


def test_a_restricted_derived_metric_is_seen_only_by_its_audience() -> None:
    first, second = (m.name for m in PINNED.catalog.metrics[:2])
    derived = Derived(
        name="blend",
        op=DerivedOp.SUM,
        of=(first, second),
        grains=PINNED.catalog.metrics[0].grains[:1],
        audience=Restricted(ids=("finance",)),
    )
    catalog = msgspec.structs.replace(PINNED.catalog, derived=(derived,))
    pinned = msgspec.structs.replace(
        PINNED, catalog=catalog, metric_digests={**PINNED.metric_digests, "blend": "ab"}
    )
    outside = seen_by(pinned, frozenset({"sales"}))
    inside = seen_by(pinned, frozenset({"finance"}))
    assert outside.catalog.derived_metric("blend") is None
    assert "blend" not in outside.metric_digests
    assert inside.catalog.derived_metric("blend") == derived
    assert inside.metric_digests["blend"] == "ab"
