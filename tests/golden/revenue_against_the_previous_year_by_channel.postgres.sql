-- revenue_against_the_previous_year_by_channel (postgres)
-- question: {"compare": {"to": "previous_year"}, "dimensions": ["channel"], "metrics": ["revenue", "average_order_value"], "top": {"by": "revenue", "n": 2}}
-- params:
--   1: date 2023-01-01
--   2: date 2023-04-01
--   3: date 2024-01-01
--   4: date 2024-04-01
--   5: str "complete"
SELECT
  CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE) AS "period",
  "t0"."channel" COLLATE "C" AS "channel",
  SUM("t0"."amount") AS "revenue",
  SUM("t0"."amount") AS "average_order_value.sum",
  COUNT("t0"."amount") AS "average_order_value.count"
FROM "orders" AS "t0"
WHERE
  (
    (
      "t0"."created_at" >= %s AND "t0"."created_at" < %s
    )
    OR (
      "t0"."created_at" >= %s AND "t0"."created_at" < %s
    )
  )
  AND "t0"."status" = %s
GROUP BY
  CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE),
  "t0"."channel"
ORDER BY
  1,
  2
