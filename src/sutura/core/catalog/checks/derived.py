"""A derived metric's referents can be aligned: checked with the whole catalog, at load.

Each of the two referents is a metric with a measure (a derived metric does not refer to another
derived metric); every grain and every dimension the derived metric lists is listed by both
referents; two referents on two models read one source (the answer is one statement joining
their two grouped halves on period and dimension values); and the derived metric is seen by no
caller who may not see both referents.
"""

from collections.abc import Iterator, Mapping
from typing import assert_never

from sutura.core.catalog.document.parse import Document
from sutura.core.catalog.error import CatalogError, quoted
from sutura.core.definitions.audience import Audience, Open, Restricted
from sutura.core.definitions.model import Derived, Metric, Model


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
        A problem at ``derived.of[i]``, ``grains[i]``, ``dimensions[i]`` or ``audience``.
    """
    if not metric.grains:
        yield doc.error("grains", "list at least one grain")
    for i, grain in enumerate(metric.grains):
        if grain in metric.grains[:i]:
            yield doc.error(f"grains[{i}]", f"the grain {grain.value} is listed twice")
    referents: list[Metric] = []
    for i, name in enumerate(metric.of):
        key = f"derived.of[{i}]"
        if name in derived:
            problem = (
                f"{quoted(name)} is a derived metric; a derived metric combines two metrics "
                "that each have a measure"
            )
            yield doc.error(key, problem)
        elif name not in metrics:
            yield doc.error(key, f"no metric is called {quoted(name)}")
        else:
            referents.append(metrics[name][1])
    if len(referents) != 2:
        return  # nothing can be aligned against a referent that is not there
    yield from _alignment_errors(models, doc, metric, referents[0], referents[1])


def _alignment_errors(
    models: Mapping[str, tuple[Document, Model]],
    doc: Document,
    metric: Derived,
    first: Metric,
    second: Metric,
) -> Iterator[CatalogError]:
    for i, grain in enumerate(metric.grains):
        for referent in (first, second):
            if grain not in referent.grains:
                problem = (
                    f"the metric {quoted(referent.name)} does not list the grain {grain.value}; "
                    "both referents must list every grain of a derived metric"
                )
                yield doc.error(f"grains[{i}]", problem)
    for i, name in enumerate(metric.dimensions):
        for referent in (first, second):
            if referent.dimension(name) is None:
                problem = (
                    f"the metric {quoted(referent.name)} does not list the dimension "
                    f"{quoted(name)}; both referents must list every dimension of a derived metric"
                )
                yield doc.error(f"dimensions[{i}]", problem)
    yield from _source_errors(models, doc, first, second)
    for referent in (first, second):
        if not _within(metric.audience, referent.audience):
            problem = (
                f"the derived metric would be seen by callers who may not see the metric "
                f"{quoted(referent.name)}; restrict it to audience ids its referents both admit"
            )
            yield doc.error("audience", problem)


def _source_errors(
    models: Mapping[str, tuple[Document, Model]], doc: Document, first: Metric, second: Metric
) -> Iterator[CatalogError]:
    """Two referents on two models are joined in one statement: they read one source."""
    if first.model == second.model:
        return
    sources = [models[m][1].source for m in (first.model, second.model) if m in models]
    if len(sources) == 2 and sources[0] != sources[1]:
        problem = (
            f"the metrics {quoted(first.name)} and {quoted(second.name)} read the sources "
            f"{quoted(sources[0])} and {quoted(sources[1])}; one statement reads one source"
        )
        yield doc.error("derived.of", problem)


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
