-- paid_revenue_smallest_and_largest_by_status (postgres)
-- question: {"dimensions": ["status"], "grain": "year", "metrics": ["paid_revenue", "smallest_order", "largest_order"]}
-- params:
--   1: date 2024-01-01
--   2: date 2025-01-01
SELECT
  CAST(DATE_TRUNC('year', "t0"."created_at") AS DATE) AS "period",
  "t0"."status" COLLATE "C" AS "status",
  SUM(CASE WHEN "t0"."is_paid" IS TRUE THEN "t0"."amount" END) AS "paid_revenue",
  MIN("t0"."amount") AS "smallest_order",
  MAX("t0"."amount") AS "largest_order"
FROM "orders" AS "t0"
WHERE
  "t0"."created_at" >= %s AND "t0"."created_at" < %s
GROUP BY
  CAST(DATE_TRUNC('year', "t0"."created_at") AS DATE),
  "t0"."status"
ORDER BY
  1,
  2
