"""The long answers' deployment: a sales table whose day-by-day breakdown is 250 rows a day.

One ``sales`` line per day and shop (5), product (5), colour (5) and size (2), over 220 days of
2024, with an amount (``DECIMAL(14,2)``) and a quantity (``INTEGER``). Five metrics share its
four dimensions: the sum of amounts, the sum of quantities, the count of lines, the largest and
the smallest amount. Asked together by day and every dimension, a range of ``n`` days answers
``250 × n`` rows of 10 columns: the period (a date), four labels, two sums of decimals, a sum
of integers (``HUGEINT``), a count (``BIGINT``). Written once per machine under the temporary
directory; ``limits.max_rows`` is 50,000, the longest answer measured.
"""

import datetime
import json
import tempfile
from pathlib import Path
from typing import Final

import duckdb

ROWS_PER_DAY: Final = 250
FIRST_DAY: Final = datetime.date(2024, 1, 1)
DAYS: Final = 220
METRICS: Final = {
    "takings": ("sum", "amount"),
    "units": ("sum", "quantity"),
    "lines": ("count", "line_id"),
    "largest_sale": ("max", "amount"),
    "smallest_sale": ("min", "amount"),
}
DIMENSIONS: Final = ("shop", "product", "colour", "size")

_SALES = f"""
CREATE TABLE sales AS
SELECT CAST(row_number() OVER (ORDER BY d, s, p, k, z) AS INTEGER) AS line_id,
       DATE '{FIRST_DAY}' + CAST(d AS INTEGER) AS sold_on,
       'shop-' || s AS shop, 'product-' || p AS product, 'colour-' || k AS colour,
       CASE z WHEN 0 THEN 'small' ELSE 'large' END AS size,
       CAST(CAST((d * 7919 + s * 104729 + p * 1299709 + k * 15485863 + z * 7) % 100000
                 AS DECIMAL(14, 0)) * 0.01 AS DECIMAL(14, 2)) AS amount,
       CAST((d + s + p + k + z) % 17 + 1 AS INTEGER) AS quantity
FROM range({DAYS}) AS a(d), range(5) AS b(s), range(5) AS c(p), range(5) AS e(k),
     range(2) AS f(z)
ORDER BY sold_on, shop, product, colour, size
"""

_MODEL = """---
kind: model
name: sales
source: main
table: sales
primary_key: line_id
columns:
  - {name: line_id, type: INTEGER}
  - {name: sold_on, type: DATE}
  - {name: shop, type: VARCHAR}
  - {name: product, type: VARCHAR}
  - {name: colour, type: VARCHAR}
  - {name: size, type: VARCHAR}
  - {name: amount, type: "DECIMAL(14,2)"}
  - {name: quantity, type: INTEGER}
---
One line per day, shop, product, colour and size.
"""

_SETTINGS = """catalog:
  dir: catalog
  version: long-1
sources:
  main:
    kind: duckdb
    path: data/long.duckdb
limits:
  max_rows: 50000
security:
  identity: single-user
  single_user_because: a benchmark, served to one process
"""


def _metric(name: str, aggregate: str, column: str) -> str:
    dimensions = "".join(f"  - {{name: {d}, column: {d}}}\n" for d in DIMENSIONS)
    return (
        f"---\nkind: metric\nname: {name}\nmodel: sales\nmeasure:\n  simple:\n"
        f"    aggregate: {aggregate}\n    column: {column}\ntime_column: sold_on\n"
        f"grains: [day, month]\ndimensions:\n{dimensions}audience: open\n---\n{name}.\n"
    )


def long_dir() -> Path:
    """The deployment, written once per machine."""
    target = Path(tempfile.gettempdir()) / "sutura-bench-long-1"
    if (target / "base.yaml").exists():
        return target
    (target / "catalog").mkdir(parents=True, exist_ok=True)
    (target / "data").mkdir(parents=True, exist_ok=True)
    database = target / "data" / "long.duckdb"
    database.unlink(missing_ok=True)
    with duckdb.connect(str(database)) as connection:
        connection.execute(_SALES)
    (target / "catalog" / "sales.md").write_text(_MODEL, encoding="utf-8")
    for name, (aggregate, column) in METRICS.items():
        (target / "catalog" / f"{name}.md").write_text(
            _metric(name, aggregate, column), encoding="utf-8"
        )
    (target / "base.yaml").write_text(_SETTINGS, encoding="utf-8")  # last: marks it complete
    return target


def long_question(rows: int) -> dict[str, object]:
    """The question whose answer is ``rows`` rows (a multiple of 250) × 10 columns."""
    end = FIRST_DAY + datetime.timedelta(days=rows // ROWS_PER_DAY)
    return {
        "metrics": list(METRICS),
        "grain": "day",
        "range": {"start": FIRST_DAY.isoformat(), "end": end.isoformat()},
        "dimensions": list(DIMENSIONS),
    }


def long_question_json(rows: int) -> bytes:
    """:func:`long_question` as JSON."""
    return json.dumps(long_question(rows)).encode("utf-8")
