-- semi_closing_revenue_by_region_filtered (postgres)
-- question: {"dimensions": ["region"], "filters": [{"dimension": "region", "op": "in", "values": ["EU", "US"]}], "metrics": ["closing_revenue"]}
-- params:
--   1: date 2024-01-01
--   2: date 2024-04-01
--   3: str "complete"
--   4: str "EU"
--   5: str "US"
SELECT
  "w"."period" AS "period",
  "w"."region" AS "region",
  SUM("w"."value") AS "closing_revenue"
FROM (
  SELECT
    CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE) AS "period",
    "t1"."region" COLLATE "C" AS "region",
    "t0"."amount" AS "value",
    "t0"."created_at" AS "at",
    MAX("t0"."created_at") OVER (
      PARTITION BY CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE), "t0"."customer_id"
    ) AS "chosen"
  FROM "orders" AS "t0"
  INNER JOIN "customers" AS "t1"
    ON "t0"."customer_id" = "t1"."customer_id"
  WHERE
    "t0"."created_at" >= %s
    AND "t0"."created_at" < %s
    AND "t0"."status" = %s
    AND "t1"."region" IN (%s, %s)
) AS "w"
WHERE
  "w"."at" = "w"."chosen"
GROUP BY
  "w"."period",
  "w"."region"
ORDER BY
  1,
  2
