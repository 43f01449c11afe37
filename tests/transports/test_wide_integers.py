"""Integer arithmetic answers the exact whole number on DuckDB, PostgreSQL and Spark, through
the Python API: ``add``, ``subtract``, ``multiply`` and ``negate`` of integers compute in 38
whole digits (docs/catalog.md, "Decimal results"), not in the column's own ``INTEGER`` or
``BIGINT``, so ``2147483647 + 1`` is ``2147483648``, as an analyst's ``SUM(i32::NUMERIC + 1)``
gives: not a refusal on one engine (or in one shape of question) and an answer on another.
Past 38 digits every engine refuses alike.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Final

import duckdb
import pytest

from sutura import api
from tests.engines import ENGINES, Deployed, Rows, answer_rows, deployed_on, outcomes

pytestmark = pytest.mark.anyio

PASSWORD_VAR: Final = "SUTURA_WIDE_INTEGER_TEST_PASSWORD"
I32_MAX: Final = 2**31 - 1
I32_MIN: Final = -(2**31)
I64_MAX: Final = 2**63 - 1
# Three readings of two hosts: a 32-bit and a 64-bit counter, each at or near its ends.
ROWS: Final = (
    (1, "2024-01-01", "alpha", I32_MAX, I64_MAX),
    (2, "2024-01-02", "alpha", I32_MIN, I64_MAX - 806),
    (3, "2024-01-03", "beta", I32_MAX, 1),
)
TABLE: Final = (
    "CREATE TABLE hi_readings (id INTEGER, day DATE, host VARCHAR, i32 INTEGER, i64 BIGINT)"
)
MODEL: Final = """---
kind: model
name: hi_readings
source: main
table: hi_readings
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
model: hi_readings
measure:
  simple: {{aggregate: sum, of: {of}}}
time_column: day
grains: [year]
dimensions:
  - {{name: host, column: host}}
  - name: i32_plus_one
    expression: {{add: [{{column: i32}}, 1]}}
    type: integer
audience: open
---
"""
METRICS: Final = {
    "hi_plus_one": "{add: [{column: i32}, 1]}",
    "hi_square": "{multiply: [{column: i32}, {column: i32}]}",
    "hi_opposite": "{negate: {column: i32}}",
    "hi_less": "{subtract: [{column: i32}, {add: [2, {negate: {column: i32}}]}]}",
    "hi_past_bigint": "{add: [{column: i64}, 1]}",
    "hi_bigint_times_nine": "{multiply: [{column: i64}, 9]}",
    "hi_past_38_digits": "{multiply: [{column: i64}, {column: i64}, 100]}",
}


DOCUMENTS: Final = {
    "hi_readings": MODEL,
    **{name: METRIC.format(name=name, of=of) for name, of in METRICS.items()},
}


@pytest.fixture(params=ENGINES)
def deployed(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Deployed]:
    """The settings directory on each engine, and the environment it reads."""
    data = tmp_path / "hi_readings.duckdb"
    with duckdb.connect(str(data)) as connection:
        connection.execute(TABLE)
        connection.executemany("INSERT INTO hi_readings VALUES (?, ?, ?, ?, ?)", ROWS)
    with deployed_on(
        request, tmp_path, data, DOCUMENTS, version="wide-integers-1", password_var=PASSWORD_VAR
    ) as found:
        yield found


def _question(metric: str, *dimensions: str) -> dict[str, object]:
    return {
        "metrics": [metric],
        "dimensions": list(dimensions),
        "range": {"start": "2024-01-01", "end": "2025-01-01"},
    }


async def _ask(deployed: Deployed, metric: str, *dimensions: str) -> Rows:
    return await answer_rows(deployed, _question(metric, *dimensions))


def _total(values: list[int]) -> list[list[str | None]]:
    return [[str(sum(values))]]


def _by_host(values: list[int]) -> list[list[str | None]]:
    return [["alpha", str(values[0] + values[1])], ["beta", str(values[2])]]


async def test_an_integer_plus_one_past_its_type_is_the_whole_number_with_or_without_dimensions(
    deployed: Deployed,
) -> None:
    plus = [row[3] + 1 for row in ROWS]  # 2147483648, -2147483647, 2147483648
    assert await _ask(deployed, "hi_plus_one") == _total(plus)
    assert await _ask(deployed, "hi_plus_one", "host") == _by_host(plus)
    # The sum itself, grouped by the computed value: each group shows its digits, no ".0".
    assert await _ask(deployed, "hi_plus_one", "i32_plus_one") == [
        [str(I32_MIN + 1), str(I32_MIN + 1)],
        [str(I32_MAX + 1), str(2 * (I32_MAX + 1))],
    ]


async def test_products_negations_and_differences_of_integers_are_whole_numbers(
    deployed: Deployed,
) -> None:
    squares = [row[3] * row[3] for row in ROWS]
    assert await _ask(deployed, "hi_square") == _total(squares)
    assert await _ask(deployed, "hi_square", "host") == _by_host(squares)
    opposites = [-row[3] for row in ROWS]  # -(-2147483648) is 2147483648
    assert await _ask(deployed, "hi_opposite", "host") == _by_host(opposites)
    assert await _ask(deployed, "hi_opposite") == _total(opposites)
    less = [row[3] - (2 - row[3]) for row in ROWS]
    assert await _ask(deployed, "hi_less", "host") == _by_host(less)


async def test_a_bigint_past_2_to_the_63_is_the_whole_number(
    deployed: Deployed,
) -> None:
    past = [row[4] + 1 for row in ROWS]
    assert await _ask(deployed, "hi_past_bigint") == _total(past)
    assert await _ask(deployed, "hi_past_bigint", "host") == _by_host(past)
    nines = [row[4] * 9 for row in ROWS]
    assert await _ask(deployed, "hi_bigint_times_nine", "host") == _by_host(nines)


async def test_past_38_digits_every_engine_refuses_alike(
    deployed: Deployed,
) -> None:
    # (2^63 - 1)^2 × 100 has 40 digits: no engine computes it exactly, so none answers.
    (outcome,) = await outcomes(deployed, _question("hi_past_38_digits", "host"))
    assert isinstance(outcome, api.Refused), outcome
    assert outcome.reason.code is api.RefusalCode.SOURCE_REFUSED
