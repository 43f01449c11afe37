-- ranges_instants_truths_and_nulls_along_a_relationship (postgres)
-- question: {"dimensions": ["priority"], "filters": [{"dimension": "loaded", "op": "le", "value": "1995-06-30 12:00"}, {"dimension": "rush", "op": "eq", "value": true}, {"dimension": "priority", "op": "is_null"}, {"dimension": "comment", "op": "is_not_null"}], "grain": "year", "metrics": ["line_revenue"]}
-- params:
--   1: date 2024-01-01
--   2: date 2025-01-01
--   3: str "1995-06-30T12:00:00"
--   4: bool true
SELECT
  CAST(DATE_TRUNC('year', "t0"."l_shipdate") AS DATE) AS "period",
  RTRIM("t1"."o_orderpriority") COLLATE "C" AS "priority",
  SUM((
    "t0"."l_extendedprice" * "t0"."l_discount"
  )) AS "line_revenue"
FROM "lineitem" AS "t0"
LEFT JOIN "orders" AS "t1"
  ON "t0"."l_orderkey" = "t1"."o_orderkey"
WHERE
  "t0"."l_shipdate" >= %s
  AND "t0"."l_shipdate" < %s
  AND "t0"."l_loaded_at" <= CAST(%s AS TIMESTAMP)
  AND "t0"."l_rush" = %s
  AND RTRIM("t1"."o_orderpriority") IS NULL
  AND NOT "t0"."l_comment" IS NULL
GROUP BY
  CAST(DATE_TRUNC('year', "t0"."l_shipdate") AS DATE),
  RTRIM("t1"."o_orderpriority")
ORDER BY
  1,
  2
