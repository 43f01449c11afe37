-- top_channel_by_paid_orders_per_month_inline_filters (postgres)
-- question: {"dimensions": ["channel"], "metrics": ["revenue", "paid_orders"], "top": {"by": "paid_orders", "direction": "asc", "n": 1, "per": "period"}}
-- params:
--   1: str "complete"
--   2: date 2024-01-01
--   3: date 2024-04-01
--   4: int 1
SELECT
  *
FROM (
  SELECT
    CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE) AS "period",
    "t0"."channel" COLLATE "C" AS "channel",
    SUM(CASE WHEN "t0"."status" = %s THEN "t0"."amount" END) AS "revenue",
    COUNT(CASE WHEN "t0"."is_paid" THEN 1 END) AS "paid_orders",
    ROW_NUMBER() OVER (
      PARTITION BY CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE)
      ORDER BY COUNT(CASE WHEN "t0"."is_paid" THEN 1 END) ASC, "t0"."channel" COLLATE "C"
    ) AS "top.rank"
  FROM "orders" AS "t0"
  WHERE
    "t0"."created_at" >= %s AND "t0"."created_at" < %s
  GROUP BY
    CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE),
    "t0"."channel"
) AS "ranked"
WHERE
  "ranked"."top.rank" <= %s
ORDER BY
  1,
  "ranked"."top.rank"
