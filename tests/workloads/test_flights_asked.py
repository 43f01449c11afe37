"""A new user's questions of the flight data, answered by sutura without touching the source
schema, equal hand-written SQL on the same engine, on DuckDB and PostgreSQL (Spark:
``test_flights_spark.py``)."""

from pathlib import Path

import pytest

from tests.workloads.engines import OnDuckDB, OnPostgres
from tests.workloads.flights.asked import expect_hand_written_answers

pytestmark = pytest.mark.anyio


async def test_the_flight_questions_equal_hand_written_sql_on_duckdb(
    flights_duckdb: OnDuckDB, tmp_path: Path
) -> None:
    await expect_hand_written_answers(flights_duckdb, tmp_path)


@pytest.mark.postgres
async def test_the_flight_questions_equal_hand_written_sql_on_postgres(
    flights_postgres: OnPostgres, tmp_path: Path
) -> None:
    await expect_hand_written_answers(flights_postgres, tmp_path)
