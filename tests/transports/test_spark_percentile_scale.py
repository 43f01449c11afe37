"""A median or percentile of a decimal keeps every place of its interpolation on DuckDB,
PostgreSQL and Spark, through the Python API: a ``DECIMAL(p,s)`` at a fraction of ``k`` digits
has scale ``s + k`` (docs/catalog.md, "Decimal results"), exactly, as an analyst's
``PERCENTILE_CONT`` over NUMERIC gives.

The interpolation ``lower + (upper - lower) * m / 10^k`` is within 38 digits on Spark for the
product (the catalog checks ``p + 2k + 3``), but the sum with ``lower`` widens it one digit
more; past 38, Spark (``allowPrecisionLoss``) silently rounds it to 6 places: the median of
``0.000001`` and ``0.000002`` as a ``DECIMAL(33,6)`` was ``0.0000020``, not ``0.0000015``. The
product is kept in the precision its value needs (the gap's whole digits and one), so the sum
stays within 38 digits.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Final

import duckdb
import pytest

from tests.engines import ENGINES, Deployed, Rows, answer_rows, deployed_on

pytestmark = pytest.mark.anyio

PASSWORD_VAR: Final = "SUTURA_PERCENTILE_SCALE_TEST_PASSWORD"
# Readings of two sensors: a level to the micrometre and a drift to the ten-micrometre.
ROWS: Final = (
    (1, "2024-01-01", "north", "0.000001", "0.00001"),
    (2, "2024-01-02", "north", "0.000002", "0.00002"),
    (3, "2024-01-03", "south", "-0.000001", "-0.00001"),
    (4, "2024-01-04", "south", "-0.000004", "-0.00004"),
    (
        5,
        "2024-01-05",
        "south",
        "123456789012345678901234567.000007",
        "1234567890123456789012345.00003",
    ),
)
TABLE: Final = (
    "CREATE TABLE hs_readings (id INTEGER, day DATE, sensor VARCHAR, level DECIMAL(33,6),"
    " drift DECIMAL(31,5))"
)
MODEL: Final = """---
kind: model
name: hs_readings
source: main
table: hs_readings
primary_key: id
columns:
  - {name: id, type: INTEGER}
  - {name: day, type: DATE}
  - {name: sensor, type: VARCHAR}
  - {name: level, type: "DECIMAL(33,6)"}
  - {name: drift, type: "DECIMAL(31,5)"}
---
"""
MEDIAN: Final = """---
kind: metric
name: median_level
model: hs_readings
measure:
  simple: {aggregate: median, of: {column: level}}
time_column: day
grains: [year]
dimensions:
  - {name: sensor, column: sensor}
audience: open
---
"""
QUARTILE: Final = """---
kind: metric
name: drift_quartile
model: hs_readings
measure:
  simple: {aggregate: percentile, of: {column: drift}, fraction: 0.25}
time_column: day
grains: [year]
dimensions:
  - {name: sensor, column: sensor}
audience: open
---
"""


DOCUMENTS: Final = {"hs_readings": MODEL, "median_level": MEDIAN, "drift_quartile": QUARTILE}


@pytest.fixture(params=ENGINES)
def deployed(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Deployed]:
    """The settings directory on each engine, and the environment it reads."""
    data = tmp_path / "readings.duckdb"
    with duckdb.connect(str(data)) as connection:
        connection.execute(TABLE)
        connection.executemany("INSERT INTO hs_readings VALUES (?, ?, ?, ?, ?)", ROWS)
    with deployed_on(
        request, tmp_path, data, DOCUMENTS, version="percentile-1", password_var=PASSWORD_VAR
    ) as found:
        yield found


async def _ask(deployed: Deployed, metric: str, dimension: str) -> Rows:
    question = {
        "metrics": [metric],
        "dimensions": [dimension],
        "range": {"start": "2024-01-01", "end": "2025-01-01"},
    }
    return await answer_rows(deployed, question)


async def test_an_interpolated_percentile_of_a_decimal_keeps_every_place(
    deployed: Deployed,
) -> None:
    # north: 0.000001 and 0.000002; south: -0.000004, -0.000001 and a large level.
    assert await _ask(deployed, "median_level", "sensor") == [
        ["north", "0.0000015"],
        ["south", "-0.0000010"],
    ]
    # A quarter of the way: north 0.00001 + 0.25 × 0.00001; south (n - 1) × 0.25 = 0.5, half
    # way from -0.00004 to -0.00001.
    assert await _ask(deployed, "drift_quartile", "sensor") == [
        ["north", "0.0000125"],
        ["south", "-0.0000250"],
    ]
