"""Derived questions: the bench question with ``compare: previous_year`` and with a trailing
window, end to end, beside the SQL an analyst would write for it by hand on raw DuckDB.

The hand-written statements compute the same rows (a self-join on the period a year before;
a window function over the months read back) and are fetched whole, as sutura's answer is.
"""

import functools
import json

import anyio
import duckdb

from bench.answer import BENCH_QUESTION, REPEAT, example_dir
from bench.serving import ask, interleaved_medians, serving
from bench.table import Figure, short
from sutura.core.question.model import Question, decode_question_json

_NOT_CANCELLED = "(o.order_status IS NULL OR o.order_status <> 'cancelled')"

_MONTHLY = f"""
    SELECT CAST(date_trunc('month', o.ordered_on) AS DATE) AS month, c.sales_region AS region,
           sum(o.amount) AS revenue, count(o.order_id) AS orders
    FROM orders AS o LEFT JOIN customers AS c ON c.customer_id = o.customer_id
    WHERE o.ordered_on >= ? AND o.ordered_on < ? AND {_NOT_CANCELLED}
    GROUP BY month, region
"""

COMPARE_SQL = f"""
WITH monthly AS ({_MONTHLY})
SELECT m.month, m.region,
       m.revenue, p.revenue, m.revenue - p.revenue, (m.revenue - p.revenue) / p.revenue,
       m.orders, p.orders, m.orders - p.orders, (m.orders - p.orders) / p.orders
FROM monthly AS m
LEFT JOIN monthly AS p
    ON p.month = m.month - INTERVAL 1 YEAR AND p.region IS NOT DISTINCT FROM m.region
WHERE m.month >= DATE '2024-01-01'
ORDER BY m.month, m.region NULLS LAST
"""

TRAILING_SQL = f"""
WITH monthly AS ({_MONTHLY})
SELECT * FROM (
    SELECT month, region, revenue,
           sum(revenue) OVER w, orders, sum(orders) OVER w
    FROM monthly
    WINDOW w AS (PARTITION BY region ORDER BY month
                 RANGE BETWEEN INTERVAL 2 MONTH PRECEDING AND CURRENT ROW)
)
WHERE month >= DATE '2024-01-01'
ORDER BY month, region NULLS LAST
"""


def _fetch_all(connection: duckdb.DuckDBPyConnection, sql: str, params: list[str]) -> object:
    return connection.execute(sql, params).fetchall()


def _derived(extra: dict[str, object]) -> Question:
    document = {**json.loads(BENCH_QUESTION), **extra}
    return decode_question_json(json.dumps(document)).unwrap()


CASES: tuple[tuple[str, dict[str, object], str, str], ...] = (
    ("compare: previous_year", {"compare": {"to": "previous_year"}}, COMPARE_SQL, "2023-01-01"),
    ("window: trailing 3", {"window": {"trailing": 3}}, TRAILING_SQL, "2023-11-01"),
)


def measure() -> list[Figure]:
    """Each derived bench question end to end beside its hand-written SQL, both warm, in turns."""
    config = example_dir(10_000 if short() else 1_000_000)
    repeat = 2 if short() else REPEAT
    database = str(config / "data" / "example.duckdb")

    async def both(question: Question, sql: str, start: str) -> tuple[float, float]:
        # The hand-written SQL on a connection to the service's own instance, in turns with
        # the service's answer: same buffers, same settings, same moments of the machine.
        with duckdb.connect(database, read_only=True) as connection:
            async with serving(config) as service:
                return await interleaved_medians(
                    functools.partial(_fetch_all, connection, sql, [start, "2025-01-01"]),
                    lambda: ask(service, question),
                    repeat,
                )

    figures = []
    for name, extra, sql, start in CASES:
        raw, ours = anyio.run(both, _derived(extra), sql, start)
        figures.append(
            Figure(
                "answer",
                f"bench question, {name}, {'10k' if short() else '1M'} rows, warm (median)",
                ours * 1e3,
                raw * 1e3,
                "ms",
                "≤ 1.2×",
                "hand-written SQL, raw DuckDB",
            )
        )
    return figures
