"""The flight data on Spark agrees with DuckDB on every statement of the agreement list (and so
with PostgreSQL: ``test_flights.py``)."""

from pathlib import Path

import pytest

from tests.workloads.engines import OnDuckDB, OnSpark, fetch_cells
from tests.workloads.flights.agreement import STATEMENTS
from tests.workloads.flights.asked import expect_hand_written_answers

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("checked", sorted(STATEMENTS))
def test_flights_agree_on_duckdb_and_spark(
    checked: str, flights_duckdb: OnDuckDB, flights_spark: OnSpark
) -> None:
    on_duckdb = fetch_cells(flights_duckdb, STATEMENTS[checked])
    assert fetch_cells(flights_spark, STATEMENTS[checked]).rows == on_duckdb.rows


@pytest.mark.anyio
async def test_the_flight_questions_equal_hand_written_sql_on_spark(
    flights_spark: OnSpark, tmp_path: Path
) -> None:
    await expect_hand_written_answers(flights_spark, tmp_path)
