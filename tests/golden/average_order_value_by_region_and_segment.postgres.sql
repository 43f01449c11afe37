-- average_order_value_by_region_and_segment (postgres)
-- question: {"dimensions": ["region", "segment"], "metrics": ["revenue", "average_order_value"]}
-- params:
--   1: date 2024-01-01
--   2: date 2024-04-01
--   3: str "complete"
SELECT
  CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE) AS "period",
  "t1"."region" COLLATE "C" AS "region",
  "t1"."segment" COLLATE "C" AS "segment",
  SUM("t0"."amount") AS "revenue",
  SUM("t0"."amount") AS "average_order_value.sum",
  COUNT("t0"."amount") AS "average_order_value.count"
FROM "orders" AS "t0"
LEFT JOIN "customers" AS "t1"
  ON "t0"."customer_id" = "t1"."customer_id"
WHERE
  "t0"."created_at" >= %s AND "t0"."created_at" < %s AND "t0"."status" = %s
GROUP BY
  CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE),
  "t1"."region",
  "t1"."segment"
ORDER BY
  1,
  2,
  3
