-- nested_percent_beside_revenue_over_three_halves_by_region (postgres)
-- question: {"dimensions": ["region"], "metrics": ["orders_per_signup_percent", "revenue"]}
-- params:
--   1: str "cancelled"
--   2: str "complete"
--   3: str "cancelled"
--   4: date 2024-01-01
--   5: date 2024-04-01
--   6: str "cancelled"
--   7: str "complete"
--   8: date 2024-01-01
--   9: date 2024-04-01
--   10: date 2024-01-01
--   11: date 2024-04-01
--   12: str "cancelled"
SELECT
  COALESCE("a"."period", "b"."period", "c"."period") AS "period",
  COALESCE("a"."region", "b"."region", "c"."region") AS "region",
  "a"."order_count" AS "order_count",
  "a"."revenue" AS "revenue",
  "a"."orders_per_signup_percent.counted.0" AS "orders_per_signup_percent.counted.0",
  "b"."signups" AS "signups",
  "c"."orders_by_signup_day" AS "orders_by_signup_day"
FROM (
  SELECT
    CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE) AS "period",
    "t1"."region" COLLATE "C" AS "region",
    COUNT(CASE WHEN "t0"."status" IS DISTINCT FROM %s THEN "t0"."order_id" END) AS "order_count",
    SUM(CASE WHEN "t0"."status" = %s THEN "t0"."amount" END) AS "revenue",
    COUNT(CASE WHEN "t0"."status" IS DISTINCT FROM %s THEN 1 END) AS "orders_per_signup_percent.counted.0"
  FROM "orders" AS "t0"
  LEFT JOIN "customers" AS "t1"
    ON "t0"."customer_id" = "t1"."customer_id"
  WHERE
    "t0"."created_at" >= %s AND "t0"."created_at" < %s
  GROUP BY
    CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE),
    "t1"."region"
  HAVING
    COUNT(CASE WHEN "t0"."status" IS DISTINCT FROM %s OR "t0"."status" = %s THEN 1 END) > 0
) AS a
FULL OUTER JOIN (
  SELECT
    CAST(DATE_TRUNC('month', "t0"."signed_up_on") AS DATE) AS "period",
    "t0"."region" COLLATE "C" AS "region",
    COUNT("t0"."customer_id") AS "signups"
  FROM "customers" AS "t0"
  WHERE
    "t0"."signed_up_on" >= %s AND "t0"."signed_up_on" < %s
  GROUP BY
    CAST(DATE_TRUNC('month', "t0"."signed_up_on") AS DATE),
    "t0"."region"
) AS b
  ON "a"."period" = "b"."period" AND "a"."region" IS NOT DISTINCT FROM "b"."region"
FULL OUTER JOIN (
  SELECT
    CAST(DATE_TRUNC('month', "t1"."signed_up_on") AS DATE) AS "period",
    "t1"."region" COLLATE "C" AS "region",
    COUNT("t0"."order_id") AS "orders_by_signup_day"
  FROM "orders" AS "t0"
  INNER JOIN "customers" AS "t1"
    ON "t0"."customer_id" = "t1"."customer_id"
  WHERE
    "t1"."signed_up_on" >= %s
    AND "t1"."signed_up_on" < %s
    AND "t0"."status" IS DISTINCT FROM %s
  GROUP BY
    CAST(DATE_TRUNC('month', "t1"."signed_up_on") AS DATE),
    "t1"."region"
) AS c
  ON COALESCE("a"."period", "b"."period") = "c"."period"
  AND COALESCE("a"."region", "b"."region") IS NOT DISTINCT FROM "c"."region"
ORDER BY
  1,
  2
