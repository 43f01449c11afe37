"""TPC-H on DuckDB and PostgreSQL: every official query has a non-trivial answer, and the
oracle's answers are equal, cell for cell, on both engines (Spark: ``test_tpch_spark.py``)."""

import decimal
from pathlib import Path

import psycopg
import pytest

from sutura.core.nouns.dialect import Dialect
from tests.workloads.engines import OnDuckDB, OnPostgres, fetch_cells
from tests.workloads.oracle import statement
from tests.workloads.tpch import probe
from tests.workloads.tpch.oracle import official_answer
from tests.workloads.tpch.queries import QUERIES

ROWS = {"Q1": 4, "Q3": 10, "Q5": 5, "Q6": 1, "Q10": 20, "Q12": 2, "Q14": 1}
"""How many rows each query returns at the tests' scale (Q3 and Q10: their full top lists)."""


def test_every_query_is_counted() -> None:
    assert sorted(ROWS) == sorted(QUERIES)


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_every_official_query_has_a_whole_answer_on_duckdb(
    name: str, tpch_duckdb: OnDuckDB
) -> None:
    answer = official_answer(name, tpch_duckdb)
    assert len(answer.rows) == ROWS[name]
    assert all(cell is not None and cell != "" for row in answer.rows for cell in row), answer


def test_the_oracle_divides_exactly_where_the_engine_would_not(tpch_duckdb: OnDuckDB) -> None:
    """DuckDB's own Q14 divides decimals as doubles; the oracle divides the exact parts."""
    own = statement(QUERIES["Q14"].text, "tpch", Dialect.DUCKDB, exact_quotients=False)
    [[promo_revenue]] = fetch_cells(tpch_duckdb, own.sql).rows
    assert promo_revenue is not None and promo_revenue.startswith("15.48654")
    assert official_answer("Q14", tpch_duckdb).rows == [["15.486546"]]


def test_q1_averages_are_sums_over_counts_with_six_decimal_places(tpch_duckdb: OnDuckDB) -> None:
    planned = statement(QUERIES["Q1"].text, "tpch", Dialect.DUCKDB)
    assert 'SUM(l_quantity) AS "avg_qty.numerator"' in planned.sql
    assert 'COUNT(l_quantity) AS "avg_qty.denominator"' in planned.sql
    for row in official_answer("Q1", tpch_duckdb).rows:
        sum_qty, avg_qty, count = row[2], row[6], row[-1]
        assert sum_qty is not None and count is not None
        assert avg_qty == format(decimal.Decimal(sum_qty) / int(count), ".6f")


@pytest.mark.postgres
@pytest.mark.parametrize("name", sorted(QUERIES))
def test_official_answers_are_equal_on_duckdb_and_postgres(
    name: str, tpch_duckdb: OnDuckDB, tpch_postgres: OnPostgres
) -> None:
    assert official_answer(name, tpch_postgres) == official_answer(name, tpch_duckdb)


@pytest.mark.postgres
def test_postgres_holds_the_specifications_types(tpch_postgres: OnPostgres) -> None:
    found = fetch_cells(
        tpch_postgres,
        "SELECT column_name, data_type, character_maximum_length, numeric_precision,"
        " numeric_scale FROM information_schema.columns"
        " WHERE table_schema = 'tpch' AND table_name = 'lineitem' ORDER BY ordinal_position",
    )
    spelled = {row[0]: " ".join(cell for cell in row[1:] if cell is not None) for row in found.rows}
    assert spelled["l_orderkey"] == "bigint 64 0"
    assert spelled["l_partkey"] == "integer 32 0"
    assert spelled["l_quantity"] == "numeric 15 2"
    assert spelled["l_returnflag"] == "character 1"
    assert spelled["l_shipmode"] == "character 10"
    assert spelled["l_comment"] == "character varying 44"
    assert spelled["l_shipdate"] == "date"


@pytest.mark.postgres
def test_postgres_pads_char_columns_and_the_oracle_gives_the_value_without_the_pad(
    tpch_duckdb: OnDuckDB, tpch_postgres: OnPostgres
) -> None:
    padded = fetch_cells(tpch_postgres, "SELECT n_name FROM tpch.nation WHERE n_nationkey = 8")
    assert padded.rows == [["INDIA" + " " * 20]]
    assert fetch_cells(
        tpch_duckdb, "SELECT n_name FROM tpch.nation WHERE n_nationkey = 8"
    ).rows == [["INDIA"]]
    assert [row[0] for row in official_answer("Q5", tpch_postgres).rows] == [
        "VIETNAM",
        "CHINA",
        "JAPAN",
        "INDONESIA",
        "INDIA",
    ]


@pytest.mark.postgres
def test_the_reader_role_reads_the_tables_and_writes_nothing(tpch_postgres: OnPostgres) -> None:
    scratch = tpch_postgres.scratch
    reader = psycopg.conninfo.make_conninfo(
        scratch.admin_dsn, user=scratch.reader, password=scratch.reader_password
    )
    with psycopg.connect(reader, autocommit=True, connect_timeout=10) as connection:
        [(count,)] = connection.execute("SELECT count(*) FROM tpch.lineitem").fetchall()
        assert count == 60_175
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            connection.execute("DELETE FROM tpch.region")


@pytest.mark.anyio
async def test_sutura_answers_over_the_raw_tables_on_duckdb(
    tpch_duckdb: OnDuckDB, tmp_path: Path
) -> None:
    rows = await probe.sutura_rows(tpch_duckdb, tmp_path)
    assert len(rows) == 2
    assert rows == probe.official(tpch_duckdb).rows


@pytest.mark.anyio
@pytest.mark.postgres
async def test_sutura_answers_over_the_raw_tables_on_postgres(
    tpch_postgres: OnPostgres, tmp_path: Path
) -> None:
    rows = await probe.sutura_rows(tpch_postgres, tmp_path)
    assert rows == probe.official(tpch_postgres).rows
