"""A ``divide`` of large values answers the exact quotient on DuckDB, PostgreSQL and Spark,
through the Python API: the quotient is cut toward zero at six places by integer division, so
the dividend is first scaled by ``10^6`` — in a type wide enough for it, not the column's own.
A ``BIGINT`` counter past 9.2 × 10^12 (``9.2 × 10^18 / 10^6``) and a ``DECIMAL(17,2)`` amount
near the top of its range divide like any other value (docs/catalog.md, "Decimal results"), as
an analyst's ``TRUNC(numerator::NUMERIC / denominator, 6)`` gives: not a refusal on one engine
and an answer on the other, nor, on Spark (whose ``DIV`` answers a ``BIGINT`` and wraps past it
without an error), a wrong number.
"""

from collections.abc import Iterator
from decimal import ROUND_DOWN, Decimal
from pathlib import Path
from typing import Final

import duckdb
import pytest

from tests.engines import ENGINES, Deployed, answer_rows, deployed_on

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


DOCUMENTS: Final = {"transfers": MODEL, "rate": RATE, "cost_rate": COST_RATE}


@pytest.fixture(params=ENGINES)
def deployed(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Deployed]:
    """The settings directory on each engine, and the environment it reads."""
    data = tmp_path / "transfers.duckdb"
    with duckdb.connect(str(data)) as connection:
        connection.execute(TABLE)
        connection.executemany("INSERT INTO transfers VALUES (?, ?, ?, ?, ?, ?)", ROWS)
    with deployed_on(
        request, tmp_path, data, DOCUMENTS, version="wide-1", password_var=PASSWORD_VAR
    ) as found:
        yield found


def _question(metric: str, *dimensions: str) -> dict[str, object]:
    return {
        "metrics": [metric],
        "dimensions": list(dimensions),
        "range": {"start": "2024-01-01", "end": "2025-01-01"},
    }


async def test_a_bigint_past_what_scaling_in_its_own_type_holds_divides_exactly(
    deployed: Deployed,
) -> None:
    # 9 000 000 000 000 000 001 / 7 is 1 285 714 285 714 285 714.428571, which scaled by 10^6
    # in a BIGINT overflows on either engine.
    sent = [_quotient(row[3], row[5]) for row in ROWS]
    assert await answer_rows(deployed, _question("rate")) == [[_sum(sent)]]
    assert await answer_rows(deployed, _question("rate", "host")) == [
        ["alpha", _sum(sent[:2])],
        ["beta", None],
    ]


async def test_a_decimal_near_the_top_of_its_precision_divides_exactly(
    deployed: Deployed,
) -> None:
    # 999 999 999 999 999.99 / 7 scaled by 10^6 has 23 digits: past DuckDB's DECIMAL(18), which
    # holds a DECIMAL(17,2) times a literal; PostgreSQL's NUMERIC held it already.
    cost = [_quotient(str(row[4]), row[5]) for row in ROWS]
    assert await answer_rows(deployed, _question("cost_rate", "host")) == [
        ["alpha", _sum(cost[:2])],
        ["beta", None],
    ]
    by_cost = await answer_rows(deployed, _question("cost_rate", "cost_per_second"))
    assert [row[0] for row in by_cost] == [str(cost[1]), str(cost[0]), None]
