"""A product of decimals is the exact number on DuckDB, PostgreSQL and Spark, through the
Python API, wherever it holds in the type the catalog gives it (docs/catalog.md, "Decimal
results"): DuckDB multiplies two decimals of at most 18 digits (or one and an ``INTEGER``) in
64 bits and refuses a product past 18 digits ("Overflow in multiplication of DECIMAL(18)"),
where PostgreSQL and Spark answer, so on DuckDB such a product is computed with one factor
first read as a ``DECIMAL(38, its scale)``; so is the gap a percentile interpolates in.
"""

from collections.abc import Iterator
from decimal import Decimal, localcontext
from pathlib import Path
from typing import Final

import duckdb
import pytest

from tests.engines import ENGINES, Deployed, Rows, answer_rows, deployed_on

pytestmark = pytest.mark.anyio

PASSWORD_VAR: Final = "SUTURA_WIDE_PRODUCT_TEST_PASSWORD"
TOP: Final = Decimal("9999999999999.99")  # DECIMAL(15,2) at its top
ROWS: Final = (
    (1, "2024-01-01", "alpha", TOP, 99999),
    (2, "2024-01-02", "alpha", Decimal("1234567890123.45"), 2),
    (3, "2024-01-03", "beta", Decimal("0.01"), 1),
)
TABLE: Final = (
    "CREATE TABLE wp_prices (id INTEGER, day DATE, host VARCHAR, price DECIMAL(15,2), qty INTEGER)"
)
MODEL: Final = """---
kind: model
name: wp_prices
source: main
table: wp_prices
primary_key: id
columns:
  - {name: id, type: INTEGER}
  - {name: day, type: DATE}
  - {name: host, type: VARCHAR}
  - {name: price, type: "DECIMAL(15,2)"}
  - {name: qty, type: INTEGER}
---
"""
METRIC: Final = """---
kind: metric
name: {name}
model: wp_prices
measure:
  simple: {{aggregate: {aggregate}, of: {of}}}
time_column: day
grains: [year]
dimensions:
  - {{name: host, column: host}}
audience: open
---
"""
METRICS: Final = {
    "wp_square": "{multiply: [{column: price}, {column: price}]}",
    "wp_by_qty": "{multiply: [{column: price}, {column: qty}]}",
    "wp_scaled": "{multiply: [{column: price}, 100000]}",
    "wp_net": "{multiply: [{column: price}, {subtract: [1, {column: price}]}]}",
}
DOCUMENTS: Final = {
    "wp_prices": MODEL,
    **{name: METRIC.format(name=name, aggregate="sum", of=of) for name, of in METRICS.items()},
    "wp_high": METRIC.format(
        name="wp_high", aggregate="percentile", of="{column: price}, fraction: 0.999999"
    ),
}


@pytest.fixture(params=ENGINES)
def deployed(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Deployed]:
    """The settings directory on each engine, and the environment it reads."""
    data = tmp_path / "wp_prices.duckdb"
    with duckdb.connect(str(data)) as connection:
        connection.execute(TABLE)
        connection.executemany("INSERT INTO wp_prices VALUES (?, ?, ?, ?, ?)", ROWS)
    with deployed_on(
        request, tmp_path, data, DOCUMENTS, version="wide-products-1", password_var=PASSWORD_VAR
    ) as found:
        yield found


def _question(metric: str) -> dict[str, object]:
    return {
        "metrics": [metric],
        "dimensions": ["host"],
        "range": {"start": "2024-01-01", "end": "2025-01-01"},
    }


async def _ask(deployed: Deployed, metric: str) -> Rows:
    return await answer_rows(deployed, _question(metric))


def _by_host(values: list[Decimal], scale: int) -> Rows:
    unit = Decimal(1).scaleb(-scale)
    with localcontext() as exact:
        exact.prec = 80
        return [
            ["alpha", str((values[0] + values[1]).quantize(unit))],
            ["beta", str(values[2].quantize(unit))],
        ]


def _exactly(values: Iterator[Decimal]) -> list[Decimal]:
    """``values``, each computed without rounding (80 digits, past any engine's 38)."""
    with localcontext() as exact:
        exact.prec = 80
        return list(values)


async def test_a_product_of_decimals_past_18_digits_is_the_exact_number(
    deployed: Deployed,
) -> None:
    squares = _exactly(row[3] * row[3] for row in ROWS)  # 9999999999999.99² has 30 digits
    assert await _ask(deployed, "wp_square") == _by_host(squares, 4)
    nets = _exactly(row[3] * (1 - row[3]) for row in ROWS)
    assert await _ask(deployed, "wp_net") == _by_host(nets, 4)


async def test_a_decimal_times_an_integer_past_18_digits_is_the_exact_number(
    deployed: Deployed,
) -> None:
    by_qty = _exactly(row[3] * row[4] for row in ROWS)
    assert await _ask(deployed, "wp_by_qty") == _by_host(by_qty, 2)
    scaled = _exactly(row[3] * 100000 for row in ROWS)
    assert await _ask(deployed, "wp_scaled") == _by_host(scaled, 2)


async def test_a_percentile_whose_step_passes_18_digits_is_the_exact_number(
    deployed: Deployed,
) -> None:
    # alpha: 1234567890123.45 + (9999999999999.99 - 1234567890123.45) × 0.999999, at scale 8:
    # the gap's 15 digits times the fraction's 6 pass 18.
    lower, upper = ROWS[1][3], ROWS[0][3]
    (high,) = _exactly(iter([lower + (upper - lower) * Decimal("0.999999")]))
    assert await _ask(deployed, "wp_high") == [
        ["alpha", str(high.quantize(Decimal("1e-8")))],
        ["beta", "0.01000000"],
    ]
