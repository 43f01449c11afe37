-- expression_late_lines_by_year_weekday_size_and_priority (postgres)
-- question: {"dimensions": ["weekday", "size", "priority"], "grain": "year", "metrics": ["late_lines"], "top": {"by": "late_lines", "n": 5}}
-- params:
--   1: int 10
--   2: str "small"
--   3: int 25
--   4: str "medium"
--   5: int 25
--   6: str "large"
--   7: str "unknown"
--   8: str "1-URGENT"
--   9: str "2-HIGH"
--   10: date 2024-01-01
--   11: date 2025-01-01
--   12: Decimal 0.05
--   13: Decimal 0.07
--   14: int 5
SELECT
  CAST(DATE_TRUNC('year', "t1"."o_orderdate") AS DATE) AS "period",
  CAST(EXTRACT(ISODOW FROM "t0"."l_shipdate") AS INT) AS "weekday",
  CASE
    WHEN "t0"."l_quantity" < %s
    THEN %s
    WHEN "t0"."l_quantity" < %s
    THEN %s
    WHEN "t0"."l_quantity" >= %s
    THEN %s
  END COLLATE "C" AS "size",
  COALESCE(RTRIM("t1"."o_orderpriority"), %s) COLLATE "C" AS "priority",
  COUNT(
    CASE
      WHEN (
        "t0"."l_commitdate" < "t0"."l_receiptdate"
      )
      OR (
        RTRIM("t1"."o_orderpriority") IN (%s, %s)
      )
      THEN 1
    END
  ) AS "late_lines"
FROM "lineitem" AS "t0"
INNER JOIN "orders" AS "t1"
  ON "t0"."l_orderkey" = "t1"."o_orderkey"
WHERE
  "t1"."o_orderdate" >= %s
  AND "t1"."o_orderdate" < %s
  AND (
    "t0"."l_discount" BETWEEN %s AND %s
    AND NOT COALESCE((
      RTRIM("t0"."l_shipmode") IS NULL
    ), FALSE)
  )
GROUP BY
  CAST(DATE_TRUNC('year', "t1"."o_orderdate") AS DATE),
  2,
  3,
  4
ORDER BY
  5 DESC NULLS LAST,
  1,
  2,
  3,
  4
LIMIT %s
