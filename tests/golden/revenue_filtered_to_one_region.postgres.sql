-- revenue_filtered_to_one_region (postgres)
-- question: {"dimensions": ["channel"], "filters": [{"dimension": "region", "op": "eq", "value": "EU"}], "grain": "quarter"}
-- params:
--   1: date 2024-01-01
--   2: date 2024-04-01
--   3: str "complete"
--   4: str "EU"
SELECT
  CAST(DATE_TRUNC('quarter', "t0"."created_at") AS DATE) AS "period",
  "t0"."channel" COLLATE "C" AS "channel",
  SUM("t0"."amount") AS "revenue"
FROM "orders" AS "t0"
INNER JOIN "customers" AS "t1"
  ON "t0"."customer_id" = "t1"."customer_id"
WHERE
  "t0"."created_at" >= %s
  AND "t0"."created_at" < %s
  AND "t0"."status" = %s
  AND "t1"."region" = %s
GROUP BY
  CAST(DATE_TRUNC('quarter', "t0"."created_at") AS DATE),
  "t0"."channel"
ORDER BY
  1,
  2
