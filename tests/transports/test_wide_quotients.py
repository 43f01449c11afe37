"""A ``divide`` of large values answers the exact quotient on DuckDB, PostgreSQL and Spark,
through the Python API: the quotient is cut toward zero at six places by integer division, so
the dividend is first scaled by ``10^6`` — in a type wide enough for it, not the column's own.
A ``BIGINT`` counter past 9.2 × 10^12 (``9.2 × 10^18 / 10^6``) and a ``DECIMAL(17,2)`` amount
near the top of its range divide like any other value (docs/catalog.md, "Decimal results"), as
an analyst's ``TRUNC(numerator::NUMERIC / denominator, 6)`` gives: not a refusal on one engine
and an answer on the other, nor, on Spark (whose ``DIV`` answers a ``BIGINT`` and wraps past it
without an error), a wrong number.
"""

import json
from collections.abc import Iterator
from decimal import ROUND_DOWN, Decimal
from pathlib import Path
from typing import Final

import anyio
import duckdb
import pytest

from sutura import api
from sutura.core.tool.capability import Capability
from tests.postgres import copy_from_duckdb, scratch_database
from tests.spark_server import load_tables
from tests.spark_server import require_server as require_spark

pytestmark = pytest.mark.anyio

PASSWORD_VAR: Final = "SUTURA_WIDE_QUOTIENT_TEST_PASSWORD"
# Three transfers of two hosts: bytes sent (a BIGINT counter), what each cost and the seconds
# it took; one took no time at all (its quotients are NULL).
ROWS: Final = (
    (1, "2024-01-01", "alpha", 9_000_000_000_000_000_001, "999999999999999.99", 7),
    (2, "2024-01-02", "alpha", 12_345_678_901_234_567, "-999999999999999.99", 3),
    (3, "2024-01-03", "beta", 5, "0.05", 0),
)
TABLE: Final = (
    "CREATE TABLE transfers (id INTEGER, day DATE, host VARCHAR, sent BIGINT,"
    " cost DECIMAL(17,2), seconds INTEGER)"
)
MODEL: Final = """---
kind: model
name: transfers
source: main
table: transfers
primary_key: id
columns:
  - {name: id, type: INTEGER}
  - {name: day, type: DATE}
  - {name: host, type: VARCHAR}
  - {name: sent, type: BIGINT}
  - {name: cost, type: "DECIMAL(17,2)"}
  - {name: seconds, type: INTEGER}
---
"""
RATE: Final = """---
kind: metric
name: rate
model: transfers
measure:
  simple: {aggregate: sum, of: {divide: [{column: sent}, {column: seconds}]}}
time_column: day
grains: [year]
dimensions:
  - {name: host, column: host}
audience: open
---
"""
COST_RATE: Final = """---
kind: metric
name: cost_rate
model: transfers
measure:
  simple: {aggregate: sum, of: {divide: [{column: cost}, {column: seconds}]}}
time_column: day
grains: [year]
dimensions:
  - {name: host, column: host}
  - name: cost_per_second
    expression: {divide: [{column: cost}, {column: seconds}]}
    type: decimal
audience: open
---
"""
SIX_PLACES: Final = Decimal("0.000001")


def _quotient(numerator: int | str, denominator: int) -> Decimal | None:
    """``numerator / denominator`` cut toward zero at six places; NULL at a zero divisor."""
    if denominator == 0:
        return None
    return (Decimal(numerator) / Decimal(denominator)).quantize(SIX_PLACES, rounding=ROUND_DOWN)


def _sum(values: list[Decimal | None]) -> str:
    return str(sum(value for value in values if value is not None))


def _config(root: Path, source: dict[str, object]) -> Path:
    catalog = root / "catalog"
    catalog.mkdir(parents=True)
    (catalog / "transfers.md").write_text(MODEL, encoding="utf-8")
    (catalog / "rate.md").write_text(RATE, encoding="utf-8")
    (catalog / "cost_rate.md").write_text(COST_RATE, encoding="utf-8")
    document = {
        "catalog": {"dir": "catalog", "version": "wide-1"},
        "sources": {"main": source},
        "security": {"identity": "single-user", "single_user_because": "one user runs the tests"},
    }
    (root / "base.yaml").write_text(json.dumps(document), encoding="utf-8")
    return root


@pytest.fixture(
    params=[
        "duckdb",
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("spark", marks=pytest.mark.spark),
    ]
)
def deployed(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[Path, dict[str, str]]]:
    """The settings directory on each engine, and the environment it reads."""
    data = tmp_path / "transfers.duckdb"
    with duckdb.connect(str(data)) as connection:
        connection.execute(TABLE)
        connection.executemany("INSERT INTO transfers VALUES (?, ?, ?, ?, ?, ?)", ROWS)
    if request.param == "duckdb":
        yield _config(tmp_path / "config", {"kind": "duckdb", "path": str(data)}), {}
        return
    if request.param == "spark":
        remote = require_spark()
        load_tables(data, remote)
        yield _config(tmp_path / "config", {"kind": "spark", "remote": remote}), {}
        return
    dsn: str = request.getfixturevalue("postgres_dsn")
    with scratch_database(dsn) as scratch:
        copy_from_duckdb(data, scratch, tmp_path)
        config = _config(tmp_path / "config", scratch.source_settings(PASSWORD_VAR))
        yield config, {PASSWORD_VAR: scratch.reader_password}


def _question(metric: str, *dimensions: str) -> dict[str, object]:
    return {
        "metrics": [metric],
        "dimensions": list(dimensions),
        "range": {"start": "2024-01-01", "end": "2025-01-01"},
    }


async def _ask(
    deployed: tuple[Path, dict[str, str]], question: dict[str, object]
) -> list[list[str | None]]:
    config, environ = deployed
    with anyio.fail_after(120):
        async with api.opened(config, environ=environ, anchors=False) as started:
            answered = await api.call(started.unwrap(), Capability.ASK_METRIC, question)
    outcome = api.outcome_of(answered)
    assert isinstance(outcome, api.Answer), outcome
    return [list(row) for row in outcome.rows]


async def test_a_bigint_past_what_scaling_in_its_own_type_holds_divides_exactly(
    deployed: tuple[Path, dict[str, str]],
) -> None:
    # 9 000 000 000 000 000 001 / 7 is 1 285 714 285 714 285 714.428571, which scaled by 10^6
    # in a BIGINT overflows on either engine.
    sent = [_quotient(row[3], row[5]) for row in ROWS]
    assert await _ask(deployed, _question("rate")) == [[_sum(sent)]]
    assert await _ask(deployed, _question("rate", "host")) == [
        ["alpha", _sum(sent[:2])],
        ["beta", None],
    ]


async def test_a_decimal_near_the_top_of_its_precision_divides_exactly(
    deployed: tuple[Path, dict[str, str]],
) -> None:
    # 999 999 999 999 999.99 / 7 scaled by 10^6 has 23 digits: past DuckDB's DECIMAL(18), which
    # holds a DECIMAL(17,2) times a literal; PostgreSQL's NUMERIC held it already.
    cost = [_quotient(str(row[4]), row[5]) for row in ROWS]
    assert await _ask(deployed, _question("cost_rate", "host")) == [
        ["alpha", _sum(cost[:2])],
        ["beta", None],
    ]
    by_cost = await _ask(deployed, _question("cost_rate", "cost_per_second"))
    assert [row[0] for row in by_cost] == [str(cost[1]), str(cost[0]), None]
