-- order_count_without_a_grain_or_dimension (duckdb)
-- question: {"grain": null, "metrics": ["order_count"], "range": {"end": "2024-03-10", "start": "2024-01-15"}}
-- params:
--   1: date 2024-01-15
--   2: date 2024-03-10
--   3: str "cancelled"
SELECT
  COUNT("t0"."order_id") AS "order_count"
FROM "orders" AS "t0"
WHERE
  "t0"."created_at" >= ?
  AND "t0"."created_at" < ?
  AND "t0"."status" IS DISTINCT FROM ?
HAVING
  COUNT(*) > 0
