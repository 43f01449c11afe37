"""Opening the raw SQL runner: only when ``tools.run_sql.enabled``, over the source it names."""

import logging
from typing import assert_never

from returns.result import Failure, Result, Success

from sutura.boundary.raw_sql.audit import audit_log
from sutura.boundary.raw_sql.base import RawRunner
from sutura.boundary.settings_files import LoadedSettings
from sutura.core.settings import (
    DuckDBSourceSettings,
    PostgresSourceSettings,
    Settings,
    SourceSettings,
    SparkSourceSettings,
)

KEY = "settings: tools.run_sql.source"


def _readable_kind(source: SourceSettings) -> bool:
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
    if not run_sql.enabled or source is None or _readable_kind(source):
        return []
    return [f"{KEY}: run_sql reads duckdb and postgres sources only"]


async def open_raw(loaded: LoadedSettings) -> Result[RawRunner | None, str]:
    """The runner ``tools.run_sql`` asks for; None when the tool is off."""
    settings = loaded.settings
    alias = settings.tools.run_sql.source
    if not settings.tools.run_sql.enabled or alias is None:
        return Success(None)
    # sqlglot logs a statement it cannot read verbatim; the audit record carries it escaped.
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    if audit_log.level == logging.NOTSET:  # an operator's own level wins
        audit_log.setLevel(logging.INFO)
    opened = await _open(alias, settings.sources[alias], loaded)
    return opened.alt(lambda problem: f"{KEY}: {alias}: {problem}")


async def _open(
    alias: str, source: SourceSettings, loaded: LoadedSettings
) -> Result[RawRunner | None, str]:
    match source:
        case DuckDBSourceSettings():
            from sutura.boundary.raw_sql.duckdb_raw import open_duckdb_raw

            limits = loaded.settings.limits
            return open_duckdb_raw(alias, source, loaded.base_dir, limits).map(_runner)
        case PostgresSourceSettings():
            from sutura.boundary.raw_sql.postgres_raw import open_postgres_raw

            return (await open_postgres_raw(alias, source, loaded.base_dir)).map(_runner)
        case SparkSourceSettings():
            return Failure("run_sql reads duckdb and postgres sources only")
        case _:
            assert_never(source)


def _runner(runner: RawRunner) -> RawRunner | None:
    return runner
