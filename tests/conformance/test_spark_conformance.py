"""DuckDB and Spark give byte-identical answers and identical refusals to every question of the
pack, and to questions generated from the whole question language.

The pack, its extra metrics and its example size are the ones DuckDB and PostgreSQL answer in
``test_conformance.py``. Each engine is started once through the real startup path (settings
document, catalog, source, anchors) and its service is shared by the questions, in one event
loop: one Spark session for the whole pack. A question that closes its source first gets a
service of its own.
"""

import os
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import NamedTuple

import anyio
import msgspec
import pytest
from hypothesis import given

from sutura.boundary.example import CATALOG, DATABASE, write_example
from sutura.boundary.service import Service
from sutura.core.nouns.answer import Refused
from tests.conformance.conftest import ORDERS
from tests.conformance.generated import drawn, expect_one_outcome, questions
from tests.conformance.pack import (
    EXTRA_CATALOG,
    PACK,
    Case,
    Rows,
    add_pack_rows,
    ask,
    ask_service,
    environ,
    expect_case,
    expect_groups_of_each_metric_alone,
    oracle_rows,
    several_metrics,
    text_half_without_source,
)
from tests.services import serving
from tests.spark_server import load_tables, require_server

SPARK_EXAMPLES = int(os.environ.get("SUTURA_SPARK_EXAMPLES", "30"))
"""Generated questions asked of Spark per run: each takes Spark 0.3–1.2 s (the latter with every
core busy), and the whole test stays well inside the two minutes a test may take."""

pytestmark = [
    pytest.mark.spark,
    # The client warns when its bounded retries run out; the source logs the error instead.
    pytest.mark.filterwarnings(r"ignore:\[RETRIES_EXCEEDED\]:UserWarning"),
]


class Engines(NamedTuple):
    """The settings directory of each engine (both serve the same catalog and rows), and the
    rows each oracle reads from them, by question name."""

    duckdb: Path
    spark: Path
    oracles: dict[str, Rows]


def _settings(directory: Path, catalog: Path, source: dict[str, object]) -> Path:
    """Write ``base.yaml`` (JSON is YAML) naming the catalog and the one source ``main``."""
    directory.mkdir()
    document = {
        "catalog": {"dir": str(catalog), "version": "example-1"},
        "sources": {"main": source},
        "security": {"identity": "single-user", "single_user_because": "one user runs the tests"},
    }
    (directory / "base.yaml").write_text(msgspec.json.encode(document).decode(), encoding="utf-8")
    return directory


@pytest.fixture(scope="module")
def engines(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engines]:
    """The example and the pack's extra metrics, in DuckDB and in the Spark test server."""
    remote = require_server()
    root = tmp_path_factory.mktemp("spark-conformance")
    write_example(root / "example", orders=ORDERS)
    catalog = root / "example" / CATALOG
    for document in sorted(EXTRA_CATALOG.glob("*.md")):
        shutil.copy(document, catalog / document.name)
    database = root / "example" / DATABASE
    add_pack_rows(database)
    oracles = oracle_rows(database)
    load_tables(database, remote)
    yield Engines(
        duckdb=_settings(root / "duckdb", catalog, {"kind": "duckdb", "path": str(database)}),
        spark=_settings(root / "spark", catalog, {"kind": "spark", "remote": remote}),
        oracles=oracles,
    )


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """One event loop for the module: one Spark session answers the whole pack."""
    return "asyncio"


class Served(NamedTuple):
    """Each engine's service, opened once for the module."""

    duckdb: Service
    spark: Service


@pytest.fixture(scope="module")
async def served(engines: Engines) -> AsyncIterator[Served]:
    """Both engines' services through the real startup path, shared by the questions."""
    async with (
        serving(environ(engines.duckdb)) as on_duckdb,
        serving(environ(engines.spark)) as on_spark,
    ):
        yield Served(duckdb=on_duckdb, spark=on_spark)


@pytest.mark.anyio
@pytest.mark.parametrize("case", PACK.questions, ids=lambda case: case.name)
async def test_duckdb_and_spark_give_the_same_outcome(
    engines: Engines, served: Served, case: Case
) -> None:
    with anyio.fail_after(120):
        if case.closed:
            on_duckdb = await ask(engines.duckdb, case, PACK.today)
            on_spark = await ask(engines.spark, case, PACK.today)
        else:
            on_duckdb = await ask_service(served.duckdb, case, PACK.today)
            on_spark = await ask_service(served.spark, case, PACK.today)
    for outcome in (on_duckdb, on_spark):
        expect_case(case, outcome, engines.oracles)
    assert text_half_without_source(on_spark) == text_half_without_source(on_duckdb)
    if isinstance(on_duckdb, Refused):
        assert on_spark == on_duckdb


@pytest.mark.anyio
@pytest.mark.parametrize(
    "case", [c for c in PACK.questions if several_metrics(c)], ids=lambda case: case.name
)
async def test_metrics_asked_together_answer_the_groups_each_answers_alone_on_spark(
    served: Served, case: Case
) -> None:
    with anyio.fail_after(120):
        await expect_groups_of_each_metric_alone(
            lambda asked: ask_service(served.spark, asked, PACK.today), case
        )


@pytest.mark.anyio
@drawn(SPARK_EXAMPLES)
@given(question=questions())
async def test_a_generated_question_has_one_outcome_on_duckdb_and_spark(
    served: Served, question: dict[str, object]
) -> None:
    with anyio.fail_after(120):
        await expect_one_outcome(served.duckdb, served.spark, question)
