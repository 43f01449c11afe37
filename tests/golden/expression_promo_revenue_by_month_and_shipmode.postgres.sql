-- expression_promo_revenue_by_month_and_shipmode (postgres)
-- question: {"dimensions": ["shipmode"], "filters": [{"dimension": "shipmode", "op": "in", "values": ["MAIL", "SHIP"]}], "metrics": ["promo_revenue"]}
-- params:
--   1: str "PROMO%"
--   2: int 1
--   3: int 1
--   4: date 2024-01-01
--   5: date 2024-04-01
--   6: str "MAIL"
--   7: str "SHIP"
SELECT
  CAST(DATE_TRUNC('month', "t0"."l_shipdate") AS DATE) AS "period",
  RTRIM("t0"."l_shipmode") COLLATE "C" AS "shipmode",
  SUM(
    CASE
      WHEN "t1"."p_type" LIKE %s
      THEN (
        "t0"."l_extendedprice" * (
          %s - "t0"."l_discount"
        )
      )
    END
  ) AS "promo_revenue.numerator",
  SUM((
    "t0"."l_extendedprice" * (
      %s - "t0"."l_discount"
    )
  )) AS "promo_revenue.denominator"
FROM "lineitem" AS "t0"
LEFT JOIN "part" AS "t1"
  ON "t0"."l_partkey" = "t1"."p_partkey"
WHERE
  "t0"."l_shipdate" >= %s
  AND "t0"."l_shipdate" < %s
  AND RTRIM("t0"."l_shipmode") IN (%s, %s)
GROUP BY
  CAST(DATE_TRUNC('month', "t0"."l_shipdate") AS DATE),
  RTRIM("t0"."l_shipmode")
ORDER BY
  1,
  2
