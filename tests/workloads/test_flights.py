"""The flight data on DuckDB and PostgreSQL: the subset is the one documented, cancelled flights
have no departure time, and both engines agree on every statement of the agreement list
(Spark: ``test_flights_spark.py``)."""

import pytest

from tests.workloads.engines import OnDuckDB, OnPostgres, fetch_cells
from tests.workloads.flights.agreement import STATEMENTS
from tests.workloads.flights.data import STOCK_ROWS, SUBSET_ROWS


def test_the_subset_is_the_first_seven_days_of_every_month(flights_duckdb: OnDuckDB) -> None:
    found = fetch_cells(
        flights_duckdb,
        "SELECT count(*), count(DISTINCT month), min(day), max(day), count(DISTINCT dest),"
        " count(DISTINCT isodow(time_hour AT TIME ZONE 'America/New_York'))"
        " FROM nycflights13.flights",
    )
    assert found.rows == [[str(SUBSET_ROWS), "12", "1", "7", "103", "7"]]


def test_a_cancelled_flight_has_no_departure_time(flights_duckdb: OnDuckDB) -> None:
    found = fetch_cells(
        flights_duckdb,
        "SELECT count(*), count(dep_delay), count(arr_time), count(air_time)"
        " FROM nycflights13.flights WHERE dep_time IS NULL",
    )
    assert found.rows == [["1527", "0", "0", "0"]]


def test_values_keep_their_exact_text(flights_duckdb: OnDuckDB) -> None:
    found = fetch_cells(
        flights_duckdb,
        "SELECT temp, precip, pressure, wind_speed, wind_gust, time_hour FROM nycflights13.weather"
        " WHERE origin = 'EWR' ORDER BY time_hour LIMIT 1",
    )
    assert found.rows == [
        ["39.02", "0.00", "1012.0", "10.357019999999999", None, "2013-01-01T06:00:00+00:00"]
    ]


@pytest.mark.postgres
@pytest.mark.parametrize("checked", sorted(STATEMENTS))
def test_flights_agree_on_duckdb_and_postgres(
    checked: str, flights_duckdb: OnDuckDB, flights_postgres: OnPostgres
) -> None:
    on_duckdb = fetch_cells(flights_duckdb, STATEMENTS[checked])
    assert fetch_cells(flights_postgres, STATEMENTS[checked]).rows == on_duckdb.rows


@pytest.mark.postgres
def test_every_flight_loads_into_postgres(flights_stock_postgres: OnPostgres) -> None:
    found = fetch_cells(
        flights_stock_postgres,
        "SELECT count(*), count(*) - count(dep_time) FROM nycflights13.flights",
    )
    assert found.rows == [[str(STOCK_ROWS), "8255"]]
