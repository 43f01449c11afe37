"""A derived metric's tree: the metrics it refers to, down to those with a measure (its leaves).

A derived metric refers to two metrics, each with a measure or derived itself; the derived
metrics of a catalog refer to one another without a cycle (checked at load), so every tree
ends in metrics with a measure. A question is answered from the leaves of the metrics it asks,
fetched by one statement, and each derived value is computed from them in each row.

Every walk here visits a name once, so it ends even on a catalog still being checked, which
may hold a cycle.
"""

from collections.abc import Callable, Iterable

from sutura.core.definitions.model import Derived, Metric

MAX_DEPTH = 8
"""How many derived metrics deep a tree may nest: a derived metric over metrics with a measure
is one deep, one over it two, and so on."""

Referent = Metric | Derived
"""What a derived metric refers to: a metric with a measure, or another derived metric."""


Lookup = Callable[[str], Metric | None]
"""The metric with a measure of a name (``Catalog.metric``, or a mapping's ``get``)."""
DerivedLookup = Callable[[str], Derived | None]
"""The derived metric of a name (``Catalog.derived_metric``, or a mapping's ``get``)."""


def leaves(metrics: Lookup, derived: DerivedLookup, names: Iterable[str]) -> tuple[Metric, ...]:
    """The metrics with a measure that ``names`` reach, each once, in the order a depth-first
    walk (first referent before second) meets them; a metric with a measure is its own leaf.

    """
    found: dict[str, Metric] = {}
    for name in _walk(derived, names):
        metric = metrics(name)
        if metric is not None:
            found.setdefault(name, metric)
    return tuple(found.values())


def reached(derived: DerivedLookup, names: Iterable[str]) -> tuple[Derived, ...]:
    """Every derived metric ``names`` reach (those among them included), each once, in walk
    order.

    >>> from sutura.core.definitions.model import DerivedOp, Grain
    >>> rate = Derived(name="rate", op=DerivedOp.RATIO, of=("part", "whole"), grains=(Grain.DAY,))
    >>> pct = Derived(name="pct", op=DerivedOp.SUM, of=("rate", "part"), grains=(Grain.DAY,))
    >>> [d.name for d in reached({"rate": rate, "pct": pct}.get, ["pct"])]
    ['pct', 'rate']
    """
    return tuple(d for d in map(derived, _walk(derived, names)) if d is not None)


def _walk(derived: DerivedLookup, names: Iterable[str]) -> list[str]:
    """Every name reached from ``names``, each once, depth first, a derived metric before the
    metrics it refers to."""
    order: list[str] = []
    seen: set[str] = set()
    stack = list(reversed(list(names)))
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        order.append(name)
        found = derived(name)
        if found is not None:
            stack.extend(reversed(found.of))
    return order
