-- ratios_first_periods (postgres)
-- question: {"dimensions": ["channel"], "metrics": ["paid_share", "items_per_paid_order"], "top": {"by": "period", "direction": "asc", "n": 5}}
-- params:
--   1: date 2024-01-01
--   2: date 2024-04-01
--   3: int 5
SELECT
  CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE) AS "period",
  "t0"."channel" COLLATE "C" AS "channel",
  COUNT(CASE WHEN "t0"."is_paid" THEN 1 END) AS "paid_share.numerator",
  COUNT("t0"."order_id") AS "paid_share.denominator",
  SUM("t0"."quantity") AS "items_per_paid_order.numerator",
  COUNT(CASE WHEN "t0"."is_paid" THEN 1 END) AS "items_per_paid_order.denominator"
FROM "orders" AS "t0"
WHERE
  "t0"."created_at" >= %s AND "t0"."created_at" < %s
GROUP BY
  CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE),
  "t0"."channel"
ORDER BY
  1 ASC,
  2
LIMIT %s
