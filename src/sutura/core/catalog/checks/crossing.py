"""One statement reads one source: no relationship, and so no ``via`` chain, joins two sources.

A metric's question compiles to one SQL statement run on the source of the metric's model, so
every model a dimension reaches must live on that source. Problems that other checks already
name (a missing model, a chain that does not resolve) are left to them.
"""

from collections.abc import Iterator, Mapping

from sutura.core.catalog.document.parse import Document
from sutura.core.catalog.error import CatalogError, quoted
from sutura.core.definitions.model import Dimension, Metric, Model, Relationship

Found = Mapping[str, tuple[Document, Model]]


def source_crossings(
    models: Found,
    relationships: Mapping[str, tuple[Document, Relationship]],
    metrics: Mapping[str, tuple[Document, Metric]],
) -> Iterator[CatalogError]:
    """Every relationship between two sources, and every ``via`` step that leaves a metric's.

    Args:
        models: the catalog's models by name, each with its document.
        relationships: the catalog's relationships by name, each with its document.
        metrics: the catalog's metrics by name, each with its document.

    Yields:
        A problem at the relationship's ``target_model``, or at the ``via`` step of a dimension.
    """
    for doc, relationship in relationships.values():
        yield from _relationship_crossing(models, doc, relationship)
    chains = {name: r for name, (_, r) in relationships.items()}
    for doc, metric in metrics.values():
        for i, dimension in enumerate(metric.dimensions):
            if dimension.shared_from is not None:
                continue  # its relationships are checked themselves (one source each)
            yield from _via_crossing(models, chains, doc, metric, f"dimensions[{i}]", dimension)


def _source_of(models: Found, name: str) -> str | None:
    found = models.get(name)
    return None if found is None else found[1].source


def _relationship_crossing(
    models: Found, doc: Document, relationship: Relationship
) -> Iterator[CatalogError]:
    origin = _source_of(models, relationship.origin_model)
    target = _source_of(models, relationship.target_model)
    if origin is None or target is None or origin == target:
        return
    yield doc.error(
        "target_model",
        f"the model {quoted(relationship.target_model)} reads the source {quoted(target)} "
        f"and the model {quoted(relationship.origin_model)} reads {quoted(origin)}; "
        "one statement reads one source, so a relationship joins models of one source",
    )


def _via_crossing(
    models: Found,
    relationships: Mapping[str, Relationship],
    doc: Document,
    metric: Metric,
    key: str,
    dimension: Dimension,
) -> Iterator[CatalogError]:
    """The first step of the chain that reaches a model on another source than the metric's."""
    source = _source_of(models, metric.model)
    current = metric.model
    for step, name in enumerate(dimension.via):
        relationship = relationships.get(name)
        if source is None or relationship is None or relationship.origin_model != current:
            return  # the chain does not resolve; the dimension checks say so
        current = relationship.target_model
        reached = _source_of(models, current)
        if reached is not None and reached != source:
            step_key = f"{key}.via" if len(dimension.via) == 1 else f"{key}.via[{step}]"
            yield doc.error(
                step_key,
                f"the relationship {quoted(name)} leads to the model {quoted(current)} on the "
                f"source {quoted(reached)}, but the metric's model {quoted(metric.model)} reads "
                f"{quoted(source)}; one statement reads one source",
            )
            return
