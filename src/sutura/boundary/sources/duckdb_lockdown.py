"""A DuckDB database's lockdown, and database files opened and locked down ahead of a server's
service, so that opening them overlaps the rest of its start.

DuckDB keeps one database instance per file in a process, and the lockdown is the instance's:
while a connection opened here is held, :func:`~sutura.boundary.sources.duckdb.open_duckdb`
joins that instance (the file is read once), finds it locked with its very settings, and keeps
it. This module imports nothing of the service: it runs beside the warm-up, which imports the
service's modules.
"""

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

import duckdb

from sutura.boundary.sources.context import SourceContext
from sutura.core.settings import DuckDBSourceSettings, SourceSettings

log = logging.getLogger("sutura.source")

Wanted = tuple[str, str, int | None]
"""What a lockdown applied: the time zone, the memory limit, the threads."""

LOCKED: Final[dict[Path, Wanted]] = {}
"""The settings each database file of this process was locked with."""


def wanted(settings: DuckDBSourceSettings, context: SourceContext) -> Wanted:
    """What the lockdown of ``settings``'s database applies."""
    return (context.time_zone, context.limits.memory_limit, settings.threads)


def locked_down(
    alias: str,
    settings: DuckDBSourceSettings,
    context: SourceContext,
    connection: duckdb.DuckDBPyConnection,
    path: Path,
    *,
    quiet: bool = False,
) -> str | None:
    """Apply the lockdown; ``lock_configuration`` last, after which nothing can be changed.
    None once applied; else the connection is closed and the operator sentence returned (the
    driver's message logged, at debug level when ``quiet``)."""
    statements: list[tuple[str, Sequence[object]]] = [
        ("SET GLOBAL TimeZone = ?", (context.time_zone,)),
        # A bound refuses (resources_exhausted); it never spills to disk instead. Before
        # external access is turned off, which forbids changing the temporary directory.
        ("SET temp_directory = ''", ()),
        ("SET max_temp_directory_size = '0B'", ()),
        ("SET enable_external_access = false", ()),
        ("SET autoinstall_known_extensions = false", ()),
        ("SET autoload_known_extensions = false", ()),
        ("SET memory_limit = ?", (context.limits.memory_limit,)),
    ]
    if settings.threads is not None:
        statements.append(("SET threads = ?", (settings.threads,)))
    statements.append(("SET lock_configuration = true", ()))
    for statement, params in statements:
        try:
            connection.execute(statement, params)
        except duckdb.Error as error:
            level = logging.DEBUG if quiet else logging.ERROR
            log.log(level, "source %s: %s failed: %s", alias, statement, error)
            connection.close()
            return f"source {alias}: {path}: cannot apply {statement.split(' =')[0]}"
    if path.is_file():
        LOCKED[path.resolve()] = wanted(settings, context)
    return None


def already_locked(connection: duckdb.DuckDBPyConnection) -> bool:
    """Whether the database ``connection`` joined was locked down already."""
    found = connection.execute("SELECT current_setting('lock_configuration')").fetchone()
    return found is not None and found[0] is True


def opened_ahead(
    sources: Mapping[str, SourceSettings], context: SourceContext
) -> list[duckdb.DuckDBPyConnection]:
    """A read-only connection to each DuckDB database file among ``sources``, its database
    locked down, to hold until the service's own sources are open; nothing else is run on
    them. What does not open, or is open already, is left for opening the source to report."""
    held: list[duckdb.DuckDBPyConnection] = []
    for alias, settings in sorted(sources.items()):
        if not isinstance(settings, DuckDBSourceSettings):
            continue
        path = context.path(settings.path)
        try:
            if not path.is_file():
                continue
            connection = duckdb.connect(str(path), read_only=True)
            if already_locked(connection):  # opened by another service of this process
                connection.close()
                continue
        except (duckdb.Error, OSError) as error:
            log.debug("source %s: %s not opened ahead: %s", alias, path, error)
            continue
        if locked_down(alias, settings, context, connection, path, quiet=True) is None:
            held.append(connection)
    return held
