"""Derived questions: the bench question with ``compare: previous_year`` and with a trailing
window, end to end, beside the SQL an analyst would write for it by hand on raw DuckDB.

The hand-written statements compute the same rows (a self-join on the period a year before;
a window function over the months read back) and are fetched whole, as sutura's answer is.
"""

import json

import anyio

from bench.answer import BENCH_QUESTION, REPEAT, example_dir
from bench.serving import beside_raw_duckdb
from bench.table import Figure, short
from sutura.core.nouns.question import Question, decode_question_json

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
    figures = []
    for name, extra, sql, start in CASES:
        params = [start, "2025-01-01"]
        raw, ours = anyio.run(beside_raw_duckdb, config, _derived(extra), sql, params, repeat)
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
