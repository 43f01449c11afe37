"""A derived metric's referents can be aligned: checked with the whole catalog, at load.

Each of the two referents is a metric with a measure or another derived metric; the derived
metrics refer to one another without a cycle (a cycle is one problem naming every metric on it
and its file) and nest at most :data:`~sutura.core.definitions.tree.MAX_DEPTH` deep. Every grain
and every dimension the derived metric lists is listed by both referents; the metrics with a
measure its tree reaches read one source (the answer is one statement, joining grouped halves
on period and dimension values where they sit on several models); and the derived metric is
seen by no caller who may not see both referents (so, referent by referent, no caller who may
not see every metric of its tree).
"""

from collections.abc import Iterator, Mapping
from typing import assert_never

from sutura.core.catalog.document.parse import Document
from sutura.core.catalog.error import CatalogError, quoted
from sutura.core.definitions.audience import Audience, Open, Restricted
from sutura.core.definitions.model import Derived, Grain, Metric, Model
from sutura.core.definitions.tree import MAX_DEPTH, Referent, leaves


def derived_errors(
    models: Mapping[str, tuple[Document, Model]],
    metrics: Mapping[str, tuple[Document, Metric]],
    derived: Mapping[str, tuple[Document, Derived]],
    doc: Document,
    metric: Derived,
) -> Iterator[CatalogError]:
    """Every problem aligning ``metric``'s referents, each at its key in ``doc``.

    Args:
        models: the catalog's models by name, each with its document.
        metrics: the catalog's metrics (with a measure) by name.
        derived: the catalog's derived metrics by name.
        doc: the derived metric's document.
        metric: the derived metric.

    Yields:
        A problem at the key of a referent (``derived.of[i]``), of both, of a grain
        (``grains[i]``), of a dimension (``dimensions[i]``) or at ``audience``.
    """
    if not metric.grains:
        yield doc.error("grains", "list at least one grain")
    for i, grain in enumerate(metric.grains):
        if grain in metric.grains[:i]:
            yield doc.error(f"grains[{i}]", f"the grain {grain.value} is listed twice")
    referents: list[Referent] = []
    for i, name in enumerate(metric.of):
        found: Referent | None = (
            derived[name][1] if name in derived else metrics[name][1] if name in metrics else None
        )
        if found is None:
            yield doc.error(f"derived.of[{i}]", f"no metric is called {quoted(name)}")
        else:
            referents.append(found)
    if len(referents) != 2:
        return  # nothing can be aligned against a referent that is not there
    plain = {name: m for name, (_, m) in metrics.items()}
    combined = {name: d for name, (_, d) in derived.items()}
    yield from _alignment_errors(metric, doc, referents[0], referents[1])
    halves = [leaves(plain.get, combined.get, [r.name]) for r in referents]
    yield from _source_errors(models, doc, referents, halves)


def _grains(referent: Referent) -> tuple[Grain, ...]:
    return referent.grains


def _lists_dimension(referent: Referent, name: str) -> bool:
    match referent:
        case Metric():
            return referent.dimension(name) is not None
        case Derived():
            return name in referent.dimensions
        case _:
            assert_never(referent)


def _alignment_errors(
    metric: Derived, doc: Document, first: Referent, second: Referent
) -> Iterator[CatalogError]:
    for i, grain in enumerate(metric.grains):
        for referent in (first, second):
            if grain not in _grains(referent):
                problem = (
                    f"the metric {quoted(referent.name)} does not list the grain {grain.value}; "
                    "both referents must list every grain of a derived metric"
                )
                yield doc.error(f"grains[{i}]", problem)
    for i, name in enumerate(metric.dimensions):
        for referent in (first, second):
            if not _lists_dimension(referent, name):
                problem = (
                    f"the metric {quoted(referent.name)} does not list the dimension "
                    f"{quoted(name)}; both referents must list every dimension of a derived metric"
                )
                yield doc.error(f"dimensions[{i}]", problem)
    for referent in (first, second):
        if not _within(metric.audience, referent.audience):
            problem = (
                f"the derived metric would be seen by callers who may not see the metric "
                f"{quoted(referent.name)}; restrict it to audience ids its referents both admit"
            )
            yield doc.error("audience", problem)


def _source_errors(
    models: Mapping[str, tuple[Document, Model]],
    doc: Document,
    referents: list[Referent],
    halves: list[tuple[Metric, ...]],
) -> Iterator[CatalogError]:
    """The leaves of both referents are read by one statement: they read one source. A referent
    whose own leaves cross sources is refused at its own document, not again here."""
    sources = []
    for half in halves:
        found = sorted({models[m.model][1].source for m in half if m.model in models})
        if len(found) != 1:
            return
        sources.append(found[0])
    if sources[0] != sources[1]:
        first, second = referents
        problem = (
            f"the metrics {quoted(first.name)} and {quoted(second.name)} read the sources "
            f"{quoted(sources[0])} and {quoted(sources[1])}; one statement reads one source"
        )
        yield doc.error("derived.of", problem)


def nesting_errors(derived: Mapping[str, tuple[Document, Derived]]) -> Iterator[CatalogError]:
    """A derived metric nested deeper than :data:`MAX_DEPTH`, and one problem per cycle among
    the derived metrics, at the referents' key of the first metric on it (by name), naming every
    metric on the cycle in order with its file and line.

    Depths are counted from the bottom up, a metric once all the derived metrics it refers to
    are counted; the metrics never counted are on a cycle or lead to one.
    """
    depths: dict[str, int] = {}
    waiting = {name: {r for r in d.of if r in derived} for name, (_, d) in derived.items()}
    users: dict[str, list[str]] = {}
    for name, referents in waiting.items():
        for referent in referents:
            users.setdefault(referent, []).append(name)
    ready = sorted(name for name, referents in waiting.items() if not referents)
    while ready:
        name = ready.pop()
        depths[name] = 1 + max((depths[r] for r in derived[name][1].of if r in depths), default=0)
        for user in users.get(name, ()):
            waiting[user].discard(name)
            if not waiting[user]:
                ready.append(user)
    for name in sorted(depths):
        if depths[name] > MAX_DEPTH:
            problem = (
                f"the derived metric nests {depths[name]} derived metrics deep; at most "
                f"{MAX_DEPTH} may"
            )
            yield derived[name][0].error("derived.of", problem)
    yield from _cycles(derived, sorted(set(derived) - set(depths)))


def _cycles(
    derived: Mapping[str, tuple[Document, Derived]], uncounted: list[str]
) -> Iterator[CatalogError]:
    reported: set[str] = set()
    for name in uncounted:
        if name in reported:
            continue
        cycle = _cycle_from(derived, name)
        if cycle is None or cycle[0] != min(cycle):
            continue
        reported.update(cycle)
        doc = derived[cycle[0]][0]
        places = ", ".join(
            f"{quoted(n)} ({quoted(derived[n][0].file)} line {_line(derived[n][0])})" for n in cycle
        )
        path = " → ".join(quoted(n) for n in (*cycle, cycle[0]))
        problem = (
            f"the derived metrics {places} refer to one another in a cycle ({path}); a derived "
            "metric is computed from metrics that do not depend on it"
        )
        yield doc.error("derived.of", problem)


def _line(doc: Document) -> int:
    return doc.error("derived.of", "").line


def _cycle_from(derived: Mapping[str, tuple[Document, Derived]], start: str) -> list[str] | None:
    """A cycle through ``start`` (``start`` first, then each metric it refers to on the way
    back to it), or None when no path from ``start`` leads back to it. Walked with a stack of
    its own: a chain of thousands of documents is no deeper for Python than one."""
    path = [start]
    pending = [iter(derived[start][1].of)]
    visited = {start}
    while pending:
        referent = next(pending[-1], None)
        if referent is None:
            pending.pop()
            path.pop()
        elif referent == start:
            return path
        elif referent in derived and referent not in visited:
            visited.add(referent)
            path.append(referent)
            pending.append(iter(derived[referent][1].of))
    return None


def _within(audience: Audience, referent: Audience) -> bool:
    """Whether every caller ``audience`` admits is admitted by ``referent``."""
    match referent:
        case Open():
            return True
        case Restricted():
            match audience:
                case Open():
                    return False
                case Restricted():
                    return set(audience.ids) <= set(referent.ids)
                case _:
                    assert_never(audience)
        case _:
            assert_never(referent)
