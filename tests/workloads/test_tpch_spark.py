"""TPC-H on Spark: the oracle's answers equal DuckDB's, cell for cell, for every official query
(and so PostgreSQL's: ``test_tpch.py``), and Spark pads ``CHAR(n)`` as PostgreSQL does."""

from pathlib import Path

import anyio
import pytest

from tests.workloads.engines import OnDuckDB, OnSpark, deployment, fetch_cells
from tests.workloads.tpch import probe
from tests.workloads.tpch.asked import (
    CATALOG,
    LIMITS,
    QUESTIONS,
    in_answer_order,
    official_name,
    sutura_answers,
)
from tests.workloads.tpch.oracle import official_answer
from tests.workloads.tpch.queries import QUERIES

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_official_answers_are_equal_on_duckdb_and_spark(
    name: str, tpch_duckdb: OnDuckDB, tpch_spark: OnSpark
) -> None:
    assert official_answer(name, tpch_spark) == official_answer(name, tpch_duckdb)


def test_spark_pads_char_columns_and_the_oracle_gives_the_value_without_the_pad(
    tpch_spark: OnSpark,
) -> None:
    padded = fetch_cells(tpch_spark, "SELECT n_name FROM tpch.nation WHERE n_nationkey = 8")
    assert padded.rows == [["INDIA" + " " * 20]]
    assert [row[0] for row in official_answer("Q12", tpch_spark).rows] == ["MAIL", "SHIP"]


@pytest.mark.anyio
async def test_sutura_answers_over_the_raw_tables_on_spark(
    tpch_spark: OnSpark, tmp_path: Path
) -> None:
    rows = await probe.sutura_rows(tpch_spark, tmp_path)
    assert rows == probe.official(tpch_spark).rows


@pytest.mark.anyio
async def test_q1_q3_q5_q6_q10_q12_q14_asked_of_sutura_equal_the_official_queries_on_spark(
    tpch_spark: OnSpark, tmp_path: Path
) -> None:
    with anyio.fail_after(300):
        answers = await sutura_answers(deployment(tmp_path, CATALOG, tpch_spark, limits=LIMITS))
    for name in QUESTIONS:
        official = official_answer(official_name(name), tpch_spark)
        assert official.rows, name
        assert answers[name] == in_answer_order(name, official.columns, official.rows), name
