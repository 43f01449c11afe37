-- top_two_regions_by_revenue_per_unit_per_quarter (postgres)
-- question: {"dimensions": ["region"], "grain": "quarter", "metrics": ["revenue_per_unit", "units"], "top": {"by": "revenue_per_unit", "n": 2, "per": "period"}}
-- params:
--   1: str "complete"
--   2: str "complete"
--   3: str "complete"
--   4: str "complete"
--   5: date 2024-01-01
--   6: date 2024-04-01
--   7: int 2
SELECT
  *
FROM (
  SELECT
    CAST(DATE_TRUNC('quarter', "t0"."created_at") AS DATE) AS "period",
    "t1"."region" COLLATE "C" AS "region",
    SUM(CASE WHEN "t0"."status" = %s THEN "t0"."amount" END) AS "revenue_per_unit.numerator",
    SUM(CASE WHEN "t0"."status" = %s THEN "t0"."quantity" END) AS "revenue_per_unit.denominator",
    SUM("t0"."quantity") AS "units",
    ROW_NUMBER() OVER (
      PARTITION BY CAST(DATE_TRUNC('quarter', "t0"."created_at") AS DATE)
      ORDER BY CAST(SUM(CASE WHEN "t0"."status" = %s THEN "t0"."amount" END) AS DOUBLE PRECISION) / NULLIF(
        CAST(SUM(CASE WHEN "t0"."status" = %s THEN "t0"."quantity" END) AS DOUBLE PRECISION),
        0
      ) DESC NULLS LAST, "t1"."region" COLLATE "C"
    ) AS "top.rank"
  FROM "orders" AS "t0"
  LEFT JOIN "customers" AS "t1"
    ON "t0"."customer_id" = "t1"."customer_id"
  WHERE
    "t0"."created_at" >= %s AND "t0"."created_at" < %s
  GROUP BY
    CAST(DATE_TRUNC('quarter', "t0"."created_at") AS DATE),
    "t1"."region"
) AS "ranked"
WHERE
  "ranked"."top.rank" <= %s
ORDER BY
  1,
  "ranked"."top.rank"
