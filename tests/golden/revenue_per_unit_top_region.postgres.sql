-- revenue_per_unit_top_region (postgres)
-- question: {"dimensions": ["region"], "filters": [{"dimension": "region", "op": "in", "values": ["EU", "US"]}], "grain": "quarter", "metrics": ["revenue_per_unit", "revenue"], "top": {"by": "revenue_per_unit", "n": 1}}
-- params:
--   1: date 2024-01-01
--   2: date 2024-04-01
--   3: str "complete"
--   4: str "EU"
--   5: str "US"
--   6: int 1
SELECT
  CAST(DATE_TRUNC('quarter', "t0"."created_at") AS DATE) AS "period",
  "t1"."region" COLLATE "C" AS "region",
  SUM("t0"."amount") AS "revenue_per_unit.numerator",
  SUM("t0"."quantity") AS "revenue_per_unit.denominator",
  SUM("t0"."amount") AS "revenue"
FROM "orders" AS "t0"
INNER JOIN "customers" AS "t1"
  ON "t0"."customer_id" = "t1"."customer_id"
WHERE
  "t0"."created_at" >= %s
  AND "t0"."created_at" < %s
  AND "t0"."status" = %s
  AND "t1"."region" IN (%s, %s)
GROUP BY
  CAST(DATE_TRUNC('quarter', "t0"."created_at") AS DATE),
  "t1"."region"
ORDER BY
  CAST(SUM("t0"."amount") AS DOUBLE PRECISION) / NULLIF(CAST(SUM("t0"."quantity") AS DOUBLE PRECISION), 0) DESC NULLS LAST,
  1,
  2
LIMIT %s
