-- units_last_three_months_top_channels (postgres)
-- question: {"dimensions": ["channel"], "metrics": ["units", "order_count"], "range": {"last": {"count": 3, "include_current": true, "unit": "month"}}, "top": {"by": "order_count", "direction": "desc", "n": 2}}
-- params:
--   1: str "cancelled"
--   2: date 2024-03-01
--   3: date 2024-06-01
--   4: int 2
SELECT
  CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE) AS "period",
  "t0"."channel" COLLATE "C" AS "channel",
  SUM("t0"."quantity") AS "units",
  COUNT(CASE WHEN "t0"."status" IS DISTINCT FROM %s THEN "t0"."order_id" END) AS "order_count"
FROM "orders" AS "t0"
WHERE
  "t0"."created_at" >= %s AND "t0"."created_at" < %s
GROUP BY
  CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE),
  "t0"."channel"
ORDER BY
  4 DESC NULLS LAST,
  1,
  2
LIMIT %s
