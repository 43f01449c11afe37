-- expression_integer_arithmetic_computed_wide (postgres)
-- question: {"dimensions": ["next_line"], "grain": "year", "metrics": ["line_keys"]}
-- params:
--   1: int 1
--   2: int 1000
--   3: date 2024-01-01
--   4: date 2025-01-01
SELECT
  CAST(DATE_TRUNC('year', "t0"."l_shipdate") AS DATE) AS "period",
  CAST(CAST("t0"."l_linenumber" AS DECIMAL(38, 0)) + CAST(%s AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) AS "next_line",
  SUM(
    CAST(CAST(CAST("t0"."l_linenumber" AS DECIMAL(38, 0)) * CAST(%s AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) + -CAST("t0"."l_partkey" AS DECIMAL(38, 0)) AS DECIMAL(38, 0))
  ) AS "line_keys"
FROM "lineitem" AS "t0"
WHERE
  "t0"."l_shipdate" >= %s AND "t0"."l_shipdate" < %s
GROUP BY
  CAST(DATE_TRUNC('year', "t0"."l_shipdate") AS DATE),
  2
ORDER BY
  1,
  2
