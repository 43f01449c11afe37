"""Authored SQL: loaded and pinned with its definition, refused by every source at startup.

A model or a metric may carry ``authored_sql`` (hand-written SQL, as the reference allows). It is
part of the definition, so it is parsed and enters the digest; but sutura runs only statements
it compiles from a definition, with every value bound, and no source runs anything else. A
catalog that carries authored SQL therefore loads (``sutura catalog`` and ``sutura prompt``
show it as they show everything), and no service starts on it: each piece is refused with the
file, the line, the key and the source that would have had to run it.
"""

from collections.abc import Iterator, Mapping

from sutura.boundary.catalog_files import CatalogRead
from sutura.core.catalog.error import CatalogError, quoted
from sutura.core.settings import SourceSettings
from sutura.core.sql.planning import dialect_of


def authored_sql_errors(
    read: CatalogRead, sources: Mapping[str, SourceSettings]
) -> list[CatalogError]:
    """One error per model or metric carrying ``authored_sql``, at that key."""
    return list(_errors(read, sources))


def _refusal(alias: str, sources: Mapping[str, SourceSettings]) -> str:
    found = sources.get(alias)
    kind = "" if found is None else f" ({dialect_of(found)})"
    return (
        f"the source {quoted(alias)}{kind} does not run authored SQL: sutura runs only the "
        "statements it compiles from a definition, every value bound; remove authored_sql"
    )


def _errors(read: CatalogRead, sources: Mapping[str, SourceSettings]) -> Iterator[CatalogError]:
    catalog = read.pinned.catalog
    for model in catalog.models:
        document = read.model_document(model.name)
        if model.authored_sql is not None and document is not None:
            yield document.error("authored_sql", _refusal(model.source, sources))
    for metric in catalog.metrics:
        document = read.metric_document(metric.name)
        read_from = catalog.model(metric.model)
        if metric.authored_sql is not None and document is not None and read_from is not None:
            yield document.error("authored_sql", _refusal(read_from.source, sources))
