"""DuckDB and Spark give byte-identical answers and identical refusals to every question.

The pack, its extra metrics and its example size are the ones DuckDB and PostgreSQL answer in
``test_conformance.py``. Each engine is started once through the real startup path (settings
document, catalog, source, anchors) and its service is shared by the questions: one Spark
session for the whole pack. A question that closes its source first gets a service of its own.
"""

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import anyio
import msgspec
import pytest
from returns.pipeline import is_successful

from sutura.boundary.answering import Service
from sutura.boundary.example import CATALOG, DATABASE, write_example
from sutura.boundary.startup import start
from sutura.core.outcome.answer import Outcome, Refused
from sutura.core.question.model import QuestionError, decode_question_json
from tests.conformance.conftest import ORDERS
from tests.conformance.pack import (
    EXTRA_CATALOG,
    PACK,
    Case,
    Rows,
    add_pack_rows,
    ask,
    expect_case,
    expect_groups_of_each_metric_alone,
    oracle_rows,
    several_metrics,
    text_half_without_source,
)
from tests.spark_server import load_tables, require_server

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


_STARTED: dict[Path, Service] = {}


def _settings(directory: Path, catalog: Path, source: dict[str, object]) -> Path:
    """Write ``base.yaml`` (JSON is YAML) naming the catalog and the one source ``main``."""
    directory.mkdir()
    document = {
        "catalog": {"dir": str(catalog), "version": "example-1"},
        "sources": {"main": source},
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
    anyio.run(_close_started)


async def _close_started() -> None:
    for service in _STARTED.values():
        await service.close()
    _STARTED.clear()


async def _started(config_dir: Path) -> Service:
    """The engine's service, started once for the module."""
    if config_dir not in _STARTED:
        started = await start({"SUTURA_CONFIG_DIR": str(config_dir)})
        assert is_successful(started), started.failure()
        _STARTED[config_dir] = started.unwrap()
    return _STARTED[config_dir]


async def _ask(config_dir: Path, case: Case) -> Outcome:
    """``case``'s outcome on the shared service, under the case's limits and the pack's today."""
    if case.closed:
        # DuckDB opens a file once per process: the shared service must be closed first.
        shared = _STARTED.pop(config_dir, None)
        if shared is not None:
            await shared.close()
        return await ask(config_dir, case, PACK.today)
    service = await _started(config_dir)
    limits = msgspec.structs.replace(service.settings.limits, **case.limits)
    tuned = Service(
        settings=msgspec.structs.replace(service.settings, limits=limits),
        pinned=service.pinned,
        sources=service.sources,
        today=lambda: PACK.today,
    )
    question = decode_question_json(msgspec.json.encode(case.question))
    assert is_successful(question), question.failure()
    outcome = await tuned.ask(question.unwrap())
    assert not isinstance(outcome, QuestionError), outcome.sentence()
    return outcome


@pytest.mark.anyio
@pytest.mark.parametrize("case", PACK.questions, ids=lambda case: case.name)
async def test_duckdb_and_spark_give_the_same_outcome(engines: Engines, case: Case) -> None:
    with anyio.fail_after(60):
        on_duckdb = await _ask(engines.duckdb, case)
        on_spark = await _ask(engines.spark, case)
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
    engines: Engines, case: Case
) -> None:
    with anyio.fail_after(120):
        await expect_groups_of_each_metric_alone(lambda asked: _ask(engines.spark, asked), case)
