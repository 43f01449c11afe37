"""Open a configured source by its kind."""

from typing import assert_never

from returns.result import Result

from sutura.boundary.settings_files import LoadedSettings
from sutura.boundary.sources.base import Source
from sutura.core.settings import (
    DuckDBSourceSettings,
    PostgresSourceSettings,
    SourceSettings,
    SparkSourceSettings,
)


async def open_source(
    alias: str, settings: SourceSettings, loaded: LoadedSettings
) -> Result[Source, str]:
    """Open the source ``alias``; the failure is an operator sentence (never a driver's text)."""
    limits = loaded.settings.limits
    match settings:
        case DuckDBSourceSettings():
            from sutura.boundary.sources.duckdb import open_duckdb

            return open_duckdb(alias, settings, loaded.base_dir, limits)
        case PostgresSourceSettings():
            from sutura.boundary.sources.postgres import open_postgres

            return await open_postgres(alias, settings, loaded.base_dir, limits)
        case SparkSourceSettings():
            from sutura.boundary.sources.spark_extra import open_spark_if_installed

            return await open_spark_if_installed(alias, settings, limits)
        case _:
            assert_never(settings)
