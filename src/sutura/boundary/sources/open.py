"""Open a configured source, or the raw SQL runner over one, by its kind."""

import logging
from typing import assert_never

import anyio.to_thread
from returns.result import Failure, Result

from sutura.boundary.sources.context import SourceContext
from sutura.boundary.sources.skeleton import RawRunner, Source
from sutura.core.settings import (
    DuckDBSourceSettings,
    PostgresSourceSettings,
    Settings,
    SourceSettings,
    SparkSourceSettings,
)

RUN_SQL_KEY = "settings: tools.run_sql.source"


async def open_source(
    alias: str, settings: SourceSettings, context: SourceContext
) -> Result[Source, str]:
    """Open the source ``alias``; the failure is an operator sentence (never a driver's text)."""
    match settings:
        case DuckDBSourceSettings():
            from sutura.boundary.sources.duckdb import open_duckdb

            # Connecting reads the file's catalog (a directory's files are loaded whole): in a
            # worker thread, so the event loop answers meanwhile (a server's handshake, a ping).
            opened = await anyio.to_thread.run_sync(open_duckdb, alias, settings, context)
            return opened.map(_source)
        case PostgresSourceSettings():
            from sutura.boundary.sources.postgres import open_postgres

            return (await open_postgres(alias, settings, context)).map(_source)
        case SparkSourceSettings():
            from sutura.boundary.sources.spark_extra import open_spark_if_installed

            return await open_spark_if_installed(alias, settings, context)
        case _:
            assert_never(settings)


def _source(source: Source) -> Source:
    return source


def _raw_readable(source: SourceSettings) -> bool:
    match source:
        case DuckDBSourceSettings() | PostgresSourceSettings():
            return True
        case SparkSourceSettings():
            return False
        case _:
            assert_never(source)


def run_sql_problems(settings: Settings) -> list[str]:
    """Why ``tools.run_sql`` cannot be served as configured (operator sentences), or none."""
    run_sql = settings.tools.run_sql
    source = settings.sources.get(run_sql.source or "")
    if not run_sql.enabled or source is None or _raw_readable(source):
        return []
    return [f"{RUN_SQL_KEY}: run_sql reads duckdb and postgres sources only"]


async def open_raw(
    alias: str, source: SourceSettings, context: SourceContext
) -> Result[RawRunner, str]:
    """The raw SQL runner over the source ``alias``, or an operator sentence naming the key."""
    # sqlglot logs a statement it cannot read verbatim; the audit record carries it escaped.
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    opened = await _open_raw(alias, source, context)
    return opened.alt(lambda problem: f"{RUN_SQL_KEY}: {alias}: {problem}")


async def _open_raw(
    alias: str, source: SourceSettings, context: SourceContext
) -> Result[RawRunner, str]:
    match source:
        case DuckDBSourceSettings():
            from sutura.boundary.sources.duckdb_raw import open_duckdb_raw

            return open_duckdb_raw(alias, source, context).map(_runner)
        case PostgresSourceSettings():
            from sutura.boundary.sources.postgres import open_postgres_raw

            return (await open_postgres_raw(alias, source, context)).map(_runner)
        case SparkSourceSettings():
            return Failure("run_sql reads duckdb and postgres sources only")
        case _:
            assert_never(source)


def _runner(runner: RawRunner) -> RawRunner:
    return runner
