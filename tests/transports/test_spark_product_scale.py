"""A product of three decimals keeps every decimal place on DuckDB, PostgreSQL and Spark,
through the Python API: its scale is the sum of the factors' scales (docs/catalog.md, "Decimal
results"), as an analyst's ``SUM(a * a * b)`` over NUMERIC gives.

Spark widens a product's precision one digit more than DuckDB and PostgreSQL do
(``p1 + p2 + 1``), so ``DECIMAL(12,3) × DECIMAL(12,3)`` is a ``DECIMAL(25,6)`` there; times a
``DECIMAL(13,3)`` that needs 39 digits, and Spark (``allowPrecisionLoss``) silently rounds the
product to 8 places where the catalog promises 9: ``1.003² × 2.007`` was ``2.01906006``, not
``2.019060063``. Each product is kept in the precision the catalog gives it, so the next
factor multiplies what every engine holds.
"""

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Final

import duckdb
import pytest

from tests.engines import ENGINES, Deployed, Rows, answer_rows, deployed_on

pytestmark = pytest.mark.anyio

PASSWORD_VAR: Final = "SUTURA_PRODUCT_SCALE_TEST_PASSWORD"
# Boxes: a side and a depth, each to the millimetre; volumes to the cubic millimetre.
ROWS: Final = (
    (1, "2024-01-01", "crate", "1.001", "1.001"),
    (2, "2024-01-02", "crate", "12.345", "-0.007"),
    (3, "2024-01-03", "tube", "-1.003", "2.007"),
)
TABLE: Final = (
    "CREATE TABLE hs_boxes (id INTEGER, day DATE, kind VARCHAR, side DECIMAL(12,3),"
    " depth DECIMAL(13,3))"
)
MODEL: Final = """---
kind: model
name: hs_boxes
source: main
table: hs_boxes
primary_key: id
columns:
  - {name: id, type: INTEGER}
  - {name: day, type: DATE}
  - {name: kind, type: VARCHAR}
  - {name: side, type: "DECIMAL(12,3)"}
  - {name: depth, type: "DECIMAL(13,3)"}
---
"""
VOLUME: Final = """---
kind: metric
name: volume
model: hs_boxes
measure:
  simple: {aggregate: sum, of: {multiply: [{column: side}, {column: side}, {column: depth}]}}
time_column: day
grains: [year]
dimensions:
  - {name: kind, column: kind}
  - name: box_volume
    expression: {multiply: [{multiply: [{column: side}, {column: side}]}, {column: depth}]}
    type: decimal
audience: open
---
"""
NESTED: Final = """---
kind: metric
name: nested_volume
model: hs_boxes
measure:
  simple:
    aggregate: max
    of: {multiply: [{multiply: [{column: side}, {column: side}]}, {column: depth}]}
time_column: day
grains: [year]
dimensions:
  - {name: kind, column: kind}
audience: open
---
"""


def _volume(row: tuple[object, ...]) -> Decimal:
    side, depth = Decimal(str(row[3])), Decimal(str(row[4]))
    return side * side * depth


DOCUMENTS: Final = {"hs_boxes": MODEL, "volume": VOLUME, "nested_volume": NESTED}


@pytest.fixture(params=ENGINES)
def deployed(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Deployed]:
    """The settings directory on each engine, and the environment it reads."""
    data = tmp_path / "boxes.duckdb"
    with duckdb.connect(str(data)) as connection:
        connection.execute(TABLE)
        connection.executemany("INSERT INTO hs_boxes VALUES (?, ?, ?, ?, ?)", ROWS)
    with deployed_on(
        request, tmp_path, data, DOCUMENTS, version="product-1", password_var=PASSWORD_VAR
    ) as found:
        yield found


async def _ask(deployed: Deployed, metric: str, dimension: str) -> Rows:
    question = {
        "metrics": [metric],
        "dimensions": [dimension],
        "range": {"start": "2024-01-01", "end": "2025-01-01"},
    }
    return await answer_rows(deployed, question)


async def test_a_product_of_three_decimals_keeps_every_place(
    deployed: Deployed,
) -> None:
    volumes = [_volume(row) for row in ROWS]
    assert [str(v) for v in volumes] == ["1.003003001", "-1.066793175", "2.019060063"]
    assert await _ask(deployed, "volume", "kind") == [
        ["crate", str(volumes[0] + volumes[1])],
        ["tube", str(volumes[2])],
    ]
    assert await _ask(deployed, "nested_volume", "kind") == [
        ["crate", str(volumes[0])],
        ["tube", str(volumes[2])],
    ]
    by_volume = await _ask(deployed, "volume", "box_volume")
    assert by_volume == [[str(v), str(v)] for v in sorted(volumes)]
