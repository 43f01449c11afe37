"""A sum of integers is the whole number on DuckDB, PostgreSQL and Spark, through the Python
API: DuckDB sums a ``BIGINT`` as a ``HUGEINT`` and PostgreSQL as a ``NUMERIC``, while Spark's
``SUM`` of a ``BIGINT`` is a ``BIGINT`` that refuses past 2^63 (ANSI overflow), so on Spark an
integer is summed as a ``DECIMAL(38, 0)`` (docs/catalog.md, "Decimal results"). So are the
sums an average, a ratio, ``top``'s ordering and a semi-additive metric add up: every engine
answers the exact number, none refuses where another answers. A 32-bit column summed past 2^31
is the whole number on every engine too.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Final

import duckdb
import pytest

from tests.engines import ENGINES, Deployed, Rows, answer_rows, deployed_on

pytestmark = pytest.mark.anyio

PASSWORD_VAR: Final = "SUTURA_WIDE_SUM_TEST_PASSWORD"
I32_MAX: Final = 2**31 - 1
I64_MAX: Final = 2**63 - 1
# Two hosts' counters: alpha's 64-bit counters add up past 2^63, and its 32-bit ones past 2^31.
ROWS: Final = (
    (1, "2024-01-01", "alpha", I32_MAX, I64_MAX),
    (2, "2024-01-02", "alpha", I32_MAX, I64_MAX - 806),
    (3, "2024-01-03", "beta", 5, 1),
)
TABLE: Final = (
    "CREATE TABLE ws_readings (id INTEGER, day DATE, host VARCHAR, i32 INTEGER, i64 BIGINT)"
)
MODEL: Final = """---
kind: model
name: ws_readings
source: main
table: ws_readings
primary_key: id
columns:
  - {name: id, type: INTEGER}
  - {name: day, type: DATE}
  - {name: host, type: VARCHAR}
  - {name: i32, type: INTEGER}
  - {name: i64, type: BIGINT}
---
"""
METRIC: Final = """---
kind: metric
name: {name}
model: ws_readings
measure:
  {measure}
time_column: day
grains: [year]
dimensions:
  - {{name: host, column: host}}
audience: open
---
"""
MEASURES: Final = {
    "ws_total": "simple: {aggregate: sum, column: i64}",
    "ws_total_i32": "simple: {aggregate: sum, column: i32}",
    "ws_mean": "simple: {aggregate: avg, column: i64}",
    "ws_kept": (
        "simple: {aggregate: sum, of: {coalesce: [{column: i64}, 0]},"
        " where: {greater_than: [{column: id}, 0]}}"
    ),
    "ws_per_reading": (
        "ratio: {numerator: {aggregate: sum, column: i64},"
        " denominator: {aggregate: count, column: id}, zero_denominator: yields_null}"
    ),
}
LAST: Final = """---
kind: metric
name: ws_last
model: ws_readings
measure:
  simple: {aggregate: sum, column: i64}
semi_additive: {rule: max, entity: id}
time_column: day
grains: [year]
dimensions:
  - {name: host, column: host}
audience: open
---
"""
DOCUMENTS: Final = {
    "ws_readings": MODEL,
    "ws_last": LAST,
    **{name: METRIC.format(name=name, measure=m) for name, m in MEASURES.items()},
}
ALPHA: Final = I64_MAX + I64_MAX - 806


@pytest.fixture(params=ENGINES)
def deployed(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Deployed]:
    """The settings directory on each engine, and the environment it reads."""
    data = tmp_path / "ws_readings.duckdb"
    with duckdb.connect(str(data)) as connection:
        connection.execute(TABLE)
        connection.executemany("INSERT INTO ws_readings VALUES (?, ?, ?, ?, ?)", ROWS)
    with deployed_on(
        request, tmp_path, data, DOCUMENTS, version="wide-sums-1", password_var=PASSWORD_VAR
    ) as found:
        yield found


async def _ask(deployed: Deployed, metric: str, *dimensions: str, **more: object) -> Rows:
    question = {
        "metrics": [metric],
        "dimensions": list(dimensions),
        "range": {"start": "2024-01-01", "end": "2025-01-01"},
        **more,
    }
    return await answer_rows(deployed, question)


async def test_a_sum_of_bigints_past_2_to_the_63_is_the_whole_number(deployed: Deployed) -> None:
    assert await _ask(deployed, "ws_total") == [[str(ALPHA + 1)]]
    assert await _ask(deployed, "ws_total", "host") == [["alpha", str(ALPHA)], ["beta", "1"]]
    assert await _ask(deployed, "ws_kept", "host") == [["alpha", str(ALPHA)], ["beta", "1"]]
    assert await _ask(deployed, "ws_last", "host") == [["alpha", str(ALPHA)], ["beta", "1"]]


async def test_averages_ratios_and_their_order_add_bigints_past_2_to_the_63(
    deployed: Deployed,
) -> None:
    half = f"{ALPHA // 2}.000000"  # ALPHA is even: its half is a whole number
    assert await _ask(deployed, "ws_mean", "host") == [["alpha", half], ["beta", "1.000000"]]
    assert await _ask(deployed, "ws_per_reading", "host") == [["alpha", half], ["beta", "1.000000"]]
    top = {"by": "ws_mean", "n": 1, "per": "period"}
    assert await _ask(deployed, "ws_mean", "host", grain="year", top=top) == [
        ["2024-01-01", "alpha", half]
    ]
    top = {"by": "ws_per_reading", "n": 1, "per": "period", "direction": "asc"}
    assert await _ask(deployed, "ws_per_reading", "host", grain="year", top=top) == [
        ["2024-01-01", "beta", "1.000000"]
    ]


async def test_a_sum_of_32_bit_integers_past_2_to_the_31_is_the_whole_number(
    deployed: Deployed,
) -> None:
    assert await _ask(deployed, "ws_total_i32", "host") == [
        ["alpha", str(2 * I32_MAX)],
        ["beta", "5"],
    ]
