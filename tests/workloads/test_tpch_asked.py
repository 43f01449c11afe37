"""TPC-H Q5, Q6, Q12 and Q14 asked of sutura over the raw tables (no views: the catalog is
written in the expression vocabulary) answer exactly what the official query answers on the
same engine, cell for cell, on DuckDB and PostgreSQL (Spark: ``test_tpch_spark.py``)."""

import re
from pathlib import Path

import anyio
import pytest

from tests.workloads.engines import Loaded, OnDuckDB, OnPostgres, deployment
from tests.workloads.tpch.asked import CATALOG, QUESTIONS, official_name, sutura_answers
from tests.workloads.tpch.oracle import official_answer

pytestmark = pytest.mark.anyio


async def _expect_official_answers(on: Loaded, settings: Path) -> None:
    with anyio.fail_after(120):
        answers = await sutura_answers(deployment(settings, CATALOG, on))
    for name in QUESTIONS:
        official = official_answer(official_name(name), on)
        assert official.rows, name
        assert answers[name] == official.rows, name


async def test_q5_q6_q12_q14_equal_the_official_queries_on_duckdb(
    tpch_duckdb: OnDuckDB, tmp_path: Path
) -> None:
    await _expect_official_answers(tpch_duckdb, tmp_path)


@pytest.mark.postgres
async def test_q5_q6_q12_q14_equal_the_official_queries_on_postgres(
    tpch_postgres: OnPostgres, tmp_path: Path
) -> None:
    await _expect_official_answers(tpch_postgres, tmp_path)


def test_the_tpch_page_shows_the_catalog_files_as_they_are() -> None:
    page = (Path(__file__).parents[2] / "docs" / "tpch.md").read_text(encoding="utf-8")
    shown = re.findall(r"```markdown\n(---\n.*?)```", page, re.S)
    files = {path.read_text(encoding="utf-8") for path in CATALOG.glob("*.md")}
    assert len(shown) == 7
    assert set(shown) <= files
    for name, fields in QUESTIONS.items():
        metrics = fields["metrics"]
        assert isinstance(metrics, list)
        assert all(f"name: {metric}\n" in "".join(files) for metric in metrics), name
