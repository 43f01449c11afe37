-- ranges_q6_quantity_below_and_discount_between (duckdb)
-- question: {"filters": [{"dimension": "quantity", "op": "lt", "value": 24}, {"dimension": "discount", "high": "0.07", "low": "0.05", "op": "between"}, {"dimension": "shipped", "op": "ge", "value": "1994-01-01"}], "grain": "year", "metrics": ["line_revenue"]}
-- params:
--   1: date 2024-01-01
--   2: date 2025-01-01
--   3: int 24
--   4: Decimal 0.05
--   5: Decimal 0.07
--   6: date 1994-01-01
SELECT
  CAST(DATE_TRUNC('year', "t0"."l_shipdate") AS DATE) AS "period",
  SUM(
    CAST((
      CAST("t0"."l_extendedprice" AS DECIMAL(38, 2)) * "t0"."l_discount"
    ) AS DECIMAL(30, 4))
  ) AS "line_revenue"
FROM "lineitem" AS "t0"
WHERE
  "t0"."l_shipdate" >= ?
  AND "t0"."l_shipdate" < ?
  AND "t0"."l_quantity" < ?
  AND "t0"."l_discount" BETWEEN ? AND ?
  AND "t0"."l_shipdate" >= ?
GROUP BY
  CAST(DATE_TRUNC('year', "t0"."l_shipdate") AS DATE)
ORDER BY
  1
