"""DuckDB's database files opened ahead of a server's service, so that opening them overlaps
the rest of its start.

DuckDB keeps one database instance per file in a process: while a connection opened here is
held, :func:`~sutura.boundary.sources.duckdb.open_duckdb` joins that instance (the file is read
once) instead of opening it, and locks it down as always. This module imports nothing of the
service: it runs beside the warm-up, which imports the service's modules.
"""

import logging
from collections.abc import Mapping

import duckdb

from sutura.boundary.sources.context import SourceContext
from sutura.core.settings import DuckDBSourceSettings, SourceSettings

log = logging.getLogger("sutura.source")


def opened_ahead(
    sources: Mapping[str, SourceSettings], context: SourceContext
) -> list[duckdb.DuckDBPyConnection]:
    """A read-only connection to each DuckDB database file among ``sources``, to hold until
    the service's own sources are open; nothing is run on them. What does not open is left
    for opening the source to report."""
    held: list[duckdb.DuckDBPyConnection] = []
    for settings in sources.values():
        if not isinstance(settings, DuckDBSourceSettings):
            continue
        path = context.path(settings.path)
        try:
            if path.is_file():
                held.append(duckdb.connect(str(path), read_only=True))
        except (duckdb.Error, OSError) as error:
            log.debug("source: %s not opened ahead: %s", path, error)
    return held
