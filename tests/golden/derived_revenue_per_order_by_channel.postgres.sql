-- derived_revenue_per_order_by_channel (postgres)
-- question: {"dimensions": ["channel"], "metrics": ["revenue_per_order"]}
-- params:
--   1: str "complete"
--   2: str "cancelled"
--   3: date 2024-01-01
--   4: date 2024-04-01
--   5: str "complete"
--   6: str "cancelled"
SELECT
  CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE) AS "period",
  "t0"."channel" COLLATE "C" AS "channel",
  SUM(CASE WHEN "t0"."status" = %s THEN "t0"."amount" END) AS "revenue",
  COUNT(CASE WHEN "t0"."status" IS DISTINCT FROM %s THEN "t0"."order_id" END) AS "order_count"
FROM "orders" AS "t0"
WHERE
  "t0"."created_at" >= %s AND "t0"."created_at" < %s
GROUP BY
  CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE),
  "t0"."channel"
HAVING
  COUNT(CASE WHEN "t0"."status" = %s OR "t0"."status" IS DISTINCT FROM %s THEN 1 END) > 0
ORDER BY
  1,
  2
