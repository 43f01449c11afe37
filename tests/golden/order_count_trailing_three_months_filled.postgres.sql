-- order_count_trailing_three_months_filled (postgres)
-- question: {"fill": true, "metrics": ["order_count", "paid_orders"], "window": {"trailing": 3}}
-- params:
--   1: str "cancelled"
--   2: date 2023-11-01
--   3: date 2024-04-01
SELECT
  CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE) AS "period",
  COUNT(CASE WHEN "t0"."status" IS DISTINCT FROM %s THEN "t0"."order_id" END) AS "order_count",
  COUNT(CASE WHEN "t0"."is_paid" THEN 1 END) AS "paid_orders"
FROM "orders" AS "t0"
WHERE
  "t0"."created_at" >= %s AND "t0"."created_at" < %s
GROUP BY
  CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE)
ORDER BY
  1
