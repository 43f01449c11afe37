-- order_count_excluding_channels (postgres)
-- question: {"dimensions": ["channel"], "filters": [{"dimension": "channel", "op": "not_in", "values": ["store", ""]}], "metrics": ["order_count"]}
-- params:
--   1: date 2024-01-01
--   2: date 2024-04-01
--   3: str "cancelled"
--   4: str "store"
--   5: str ""
SELECT
  CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE) AS "period",
  "t0"."channel" COLLATE "C" AS "channel",
  COUNT("t0"."order_id") AS "order_count"
FROM "orders" AS "t0"
WHERE
  "t0"."created_at" >= %s
  AND "t0"."created_at" < %s
  AND "t0"."status" IS DISTINCT FROM %s
  AND NOT "t0"."channel" IN (%s, %s)
GROUP BY
  CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE),
  "t0"."channel"
ORDER BY
  1,
  2
