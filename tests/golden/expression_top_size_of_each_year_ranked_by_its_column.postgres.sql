-- expression_top_size_of_each_year_ranked_by_its_column (postgres)
-- question: {"dimensions": ["size"], "grain": "year", "metrics": ["late_lines"], "top": {"by": "late_lines", "n": 1, "per": "period"}}
-- params:
--   1: int 10
--   2: str "small"
--   3: int 25
--   4: str "medium"
--   5: int 25
--   6: str "large"
--   7: str "1-URGENT"
--   8: str "2-HIGH"
--   9: date 2024-01-01
--   10: date 2025-01-01
--   11: Decimal 0.05
--   12: Decimal 0.07
--   13: int 1
SELECT
  *
FROM (
  SELECT
    "w"."period" AS "period",
    "w"."size" AS "size",
    COUNT("w"."i0.0") AS "late_lines",
    ROW_NUMBER() OVER (PARTITION BY "w"."period" ORDER BY COUNT("w"."i0.0") DESC NULLS LAST, "w"."size") AS "top.rank"
  FROM (
    SELECT
      CAST(DATE_TRUNC('year', "t1"."o_orderdate") AS DATE) AS "period",
      CASE
        WHEN "t0"."l_quantity" < %s
        THEN %s
        WHEN "t0"."l_quantity" < %s
        THEN %s
        WHEN "t0"."l_quantity" >= %s
        THEN %s
      END COLLATE "C" AS "size",
      CASE
        WHEN (
          "t0"."l_commitdate" < "t0"."l_receiptdate"
        )
        OR (
          RTRIM("t1"."o_orderpriority") IN (%s, %s)
        )
        THEN 1
      END AS "i0.0"
    FROM "lineitem" AS "t0"
    INNER JOIN "orders" AS "t1"
      ON "t0"."l_orderkey" = "t1"."o_orderkey"
    WHERE
      "t1"."o_orderdate" >= %s
      AND "t1"."o_orderdate" < %s
      AND (
        "t0"."l_discount" BETWEEN %s AND %s
        AND NOT COALESCE((
          RTRIM("t0"."l_shipmode") IS NULL
        ), FALSE)
      )
  ) AS "w"
  GROUP BY
    "w"."period",
    "w"."size"
) AS "ranked"
WHERE
  "ranked"."top.rank" <= %s
ORDER BY
  1,
  "ranked"."top.rank"
