-- derived_revenue_per_order_by_channel_without_a_grain (postgres)
-- question: {"dimensions": ["channel"], "grain": null, "metrics": ["revenue_per_order"], "range": {"end": "2024-03-10", "start": "2024-01-15"}}
-- params:
--   1: str "complete"
--   2: str "cancelled"
--   3: date 2024-01-15
--   4: date 2024-03-10
--   5: str "complete"
--   6: str "cancelled"
SELECT
  "t0"."channel" COLLATE "C" AS "channel",
  SUM(CASE WHEN "t0"."status" = %s THEN "t0"."amount" END) AS "revenue",
  COUNT(CASE WHEN "t0"."status" IS DISTINCT FROM %s THEN "t0"."order_id" END) AS "order_count"
FROM "orders" AS "t0"
WHERE
  "t0"."created_at" >= %s AND "t0"."created_at" < %s
GROUP BY
  "t0"."channel"
HAVING
  COUNT(CASE WHEN "t0"."status" = %s OR "t0"."status" IS DISTINCT FROM %s THEN 1 END) > 0
ORDER BY
  1
