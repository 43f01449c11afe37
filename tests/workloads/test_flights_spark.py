"""The flight data on Spark agrees with DuckDB on every statement of the agreement list (and so
with PostgreSQL: ``test_flights.py``)."""

import pytest

from tests.workloads.engines import OnDuckDB, OnSpark, fetch_cells
from tests.workloads.flights.agreement import STATEMENTS

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("checked", sorted(STATEMENTS))
def test_flights_agree_on_duckdb_and_spark(
    checked: str, flights_duckdb: OnDuckDB, flights_spark: OnSpark
) -> None:
    on_duckdb = fetch_cells(flights_duckdb, STATEMENTS[checked])
    assert fetch_cells(flights_spark, STATEMENTS[checked]).rows == on_duckdb.rows
