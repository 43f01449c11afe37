-- revenue_and_paid_orders_by_channel_without_a_grain (postgres)
-- question: {"dimensions": ["channel"], "grain": null, "metrics": ["revenue", "paid_orders"], "range": {"end": "2024-03-10", "start": "2024-01-15"}, "top": {"by": "paid_orders", "n": 2}}
-- params:
--   1: str "complete"
--   2: date 2024-01-15
--   3: date 2024-03-10
--   4: int 2
SELECT
  "t0"."channel" COLLATE "C" AS "channel",
  SUM(CASE WHEN "t0"."status" = %s THEN "t0"."amount" END) AS "revenue",
  COUNT(CASE WHEN "t0"."is_paid" THEN 1 END) AS "paid_orders"
FROM "orders" AS "t0"
WHERE
  "t0"."created_at" >= %s AND "t0"."created_at" < %s
GROUP BY
  "t0"."channel"
ORDER BY
  3 DESC NULLS LAST,
  1
LIMIT %s
