"""TPC-H Q1, Q3, Q5, Q6, Q10, Q12 and Q14 asked of sutura over the raw tables (no views: the
catalog is written in the expression vocabulary) answer exactly what the official query answers
on the same engine, cell for cell and every output column, on DuckDB and PostgreSQL (Spark:
``test_tpch_spark.py``)."""

import re
from pathlib import Path

import anyio
import pytest

from sutura.core.nouns.refusal import RefusalCode
from tests.workloads.engines import Loaded, OnDuckDB, OnPostgres, deployment
from tests.workloads.tpch.asked import (
    CATALOG,
    LIMITS,
    QUESTIONS,
    in_answer_order,
    official_name,
    sutura_answers,
)
from tests.workloads.tpch.oracle import official_answer

pytestmark = pytest.mark.anyio


async def _expect_official_answers(on: Loaded, settings: Path) -> None:
    with anyio.fail_after(120):
        answers = await sutura_answers(deployment(settings, CATALOG, on, limits=LIMITS))
    for name in QUESTIONS:
        official = official_answer(official_name(name), on)
        assert official.rows, name
        assert answers[name] == in_answer_order(name, official.columns, official.rows), name


async def test_q1_q3_q5_q6_q10_q12_q14_equal_the_official_queries_on_duckdb(
    tpch_duckdb: OnDuckDB, tmp_path: Path
) -> None:
    await _expect_official_answers(tpch_duckdb, tmp_path)


@pytest.mark.postgres
async def test_q1_q3_q5_q6_q10_q12_q14_equal_the_official_queries_on_postgres(
    tpch_postgres: OnPostgres, tmp_path: Path
) -> None:
    await _expect_official_answers(tpch_postgres, tmp_path)


def test_the_tpch_page_shows_the_catalog_files_as_they_are() -> None:
    page = (Path(__file__).parents[2] / "docs" / "tpch.md").read_text(encoding="utf-8")
    shown = re.findall(r"```markdown\n(---\n.*?)```", page, re.S)
    files = {path.read_text(encoding="utf-8") for path in CATALOG.glob("*.md")}
    assert len(shown) == 10
    assert set(shown) <= files
    for name, fields in QUESTIONS.items():
        metrics = fields["metrics"]
        assert isinstance(metrics, list)
        assert all(f"name: {metric}\n" in "".join(files) for metric in metrics), name


async def test_q10_groups_by_seven_dimensions_only_where_the_operator_raised_the_limit(
    tpch_duckdb: OnDuckDB, tmp_path: Path
) -> None:
    from sutura.api import outcome_of, question
    from sutura.core.tool.capability import Capability
    from tests.refusals import expect_refusal
    from tests.services import call, serving

    asked = question(QUESTIONS["Q10"]).unwrap()
    with anyio.fail_after(60):
        async with serving(deployment(tmp_path, CATALOG, tpch_duckdb)) as service:
            reply = await call(service, Capability.ASK_METRIC, asked)
    expect_refusal(outcome_of(reply), RefusalCode.TOO_MANY_DIMENSIONS)
