"""A decimal compared with a number of a larger scale is compared exactly on DuckDB,
PostgreSQL and Spark, through the Python API, as an analyst's ``amount <= 0.005`` over NUMERIC
gives: in a catalog's predicate, a ``buckets`` edge, a ``coalesce`` and a caller's filter.

Spark compares two decimals in their wider type, and where that needs more than 38 digits (a
``DECIMAL(38,2)`` beside a ``DECIMAL(3,3)`` needs 39) it cuts the scale, rounding the other
side: ``0.01 <= 0.005`` was true there, and ``coalesce(amount, 0.005)`` was ``0.010`` (on
DuckDB too). Both sides are compared (or chosen between) as ``DECIMAL(38, the larger scale)``
instead: exact, or, for a value too large for it, an overflow refused (as DuckDB refuses it),
never a wrong count.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Final

import duckdb
import pytest

from tests.engines import ENGINES, Deployed, Rows, answer_rows, deployed_on

pytestmark = pytest.mark.anyio

PASSWORD_VAR: Final = "SUTURA_WIDE_COMPARISON_TEST_PASSWORD"
# Fees charged to the cent in a column as wide as a DECIMAL goes; one not yet charged.
ROWS: Final = (
    (1, "2024-01-01", "0.00"),
    (2, "2024-01-02", "0.01"),
    (3, "2024-01-03", "0.02"),
    (4, "2024-01-04", None),
)
TABLE: Final = "CREATE TABLE hs_fees (id INTEGER, day DATE, fee DECIMAL(38,2))"
MODEL: Final = """---
kind: model
name: hs_fees
source: main
table: hs_fees
primary_key: id
columns:
  - {name: id, type: INTEGER}
  - {name: day, type: DATE}
  - {name: fee, type: "DECIMAL(38,2)"}
---
"""


def _metric(name: str, where: str) -> str:
    return f"""---
kind: metric
name: {name}
model: hs_fees
measure:
  simple: {{aggregate: count, where: {where}}}
time_column: day
grains: [year]
dimensions:
  - {{name: fee, column: fee}}
  - name: band
    expression: {{buckets: {{of: {{column: fee}}, edges: [0.005, 0.015], labels: [lo, mid, hi]}}}}
    type: text
  - name: charged
    expression: {{coalesce: [{{column: fee}}, 0.005]}}
    type: decimal
  - name: floor
    expression:
      case: [{{when: {{is_null: {{column: fee}}}}, then: 0.005}}, {{else: {{column: fee}}}}]
    type: decimal
audience: open
---
"""


METRICS: Final = {
    "small_fees": _metric("small_fees", "{at_most: [{column: fee}, 0.005]}"),
    "middle_fees": _metric("middle_fees", "{between: [{column: fee}, 0.005, 0.015]}"),
    "odd_fees": _metric("odd_fees", "{in: [{column: fee}, [0.011, 0.021]]}"),
    "fees": _metric("fees", "{is_not_null: {column: id}}"),
}


DOCUMENTS: Final = {"hs_fees": MODEL, **METRICS}


@pytest.fixture(params=ENGINES)
def deployed(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Deployed]:
    """The settings directory on each engine, and the environment it reads."""
    data = tmp_path / "fees.duckdb"
    with duckdb.connect(str(data)) as connection:
        connection.execute(TABLE)
        connection.executemany("INSERT INTO hs_fees VALUES (?, ?, ?)", ROWS)
    with deployed_on(
        request, tmp_path, data, DOCUMENTS, version="comparison-1", password_var=PASSWORD_VAR
    ) as found:
        yield found


async def _ask(
    deployed: Deployed,
    metric: str,
    dimensions: list[str],
    filters: list[dict[str, object]],
) -> Rows:
    question = {
        "metrics": [metric],
        "dimensions": dimensions,
        "filters": filters,
        "range": {"start": "2024-01-01", "end": "2025-01-01"},
    }
    return await answer_rows(deployed, question)


async def test_a_catalog_compares_a_wide_decimal_exactly(
    deployed: Deployed,
) -> None:
    assert await _ask(deployed, "small_fees", [], []) == [["1"]]  # 0.00
    assert await _ask(deployed, "middle_fees", [], []) == [["1"]]  # 0.01
    assert await _ask(deployed, "odd_fees", [], []) == [["0"]]
    assert await _ask(deployed, "fees", ["band"], []) == [
        ["hi", "1"],
        ["lo", "1"],
        ["mid", "1"],
        [None, "1"],
    ]
    assert await _ask(deployed, "fees", ["floor"], []) == await _ask(
        deployed, "fees", ["charged"], []
    )
    assert await _ask(deployed, "fees", ["charged"], []) == [
        ["0.000", "1"],
        ["0.005", "1"],
        ["0.010", "1"],
        ["0.020", "1"],
    ]


async def test_a_caller_filters_a_wide_decimal_exactly(
    deployed: Deployed,
) -> None:
    def count(op: str, *values: str) -> dict[str, object]:
        if op == "in":
            return {"dimension": "fee", "op": op, "values": list(values)}
        if op == "between":
            return {"dimension": "fee", "op": op, "low": values[0], "high": values[1]}
        return {"dimension": "fee", "op": op, "value": values[0]}

    assert await _ask(deployed, "fees", [], [count("le", "0.015")]) == [["2"]]
    assert await _ask(deployed, "fees", [], [count("gt", "0.005")]) == [["2"]]
    assert await _ask(deployed, "fees", [], [count("in", "0.011")]) == []
    assert await _ask(deployed, "fees", [], [count("between", "0.005", "0.015")]) == [["1"]]
