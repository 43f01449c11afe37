-- derived_running_revenue_and_paid_orders_top_channel_per_month (postgres)
-- question: {"dimensions": ["channel"], "metrics": ["revenue_and_paid_orders"], "top": {"by": "revenue_and_paid_orders", "n": 1, "per": "period"}, "window": {"running": true}}
-- params:
--   1: str "complete"
--   2: date 2024-01-01
--   3: date 2024-04-01
SELECT
  CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE) AS "period",
  "t0"."channel" COLLATE "C" AS "channel",
  SUM(CASE WHEN "t0"."status" = %s THEN "t0"."amount" END) AS "revenue",
  COUNT(CASE WHEN "t0"."is_paid" THEN 1 END) AS "paid_orders"
FROM "orders" AS "t0"
WHERE
  "t0"."created_at" >= %s AND "t0"."created_at" < %s
GROUP BY
  CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE),
  "t0"."channel"
ORDER BY
  1,
  2
