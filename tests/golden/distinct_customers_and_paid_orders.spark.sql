-- distinct_customers_and_paid_orders (spark)
-- question: {"grain": "week", "metrics": ["customers_ordering", "paid_orders"], "range": {"end": "2024-02-01", "start": "2024-01-03"}}
-- params:
--   1: date 2024-01-01
--   2: date 2024-02-05
SELECT
  CAST(DATE_TRUNC('week', `t0`.`created_at`) AS DATE) AS `period`,
  COUNT(DISTINCT CASE WHEN NOT `t0`.`customer_id` IS NULL THEN `t0`.`customer_id` END) AS `customers_ordering`,
  COUNT(CASE WHEN `t0`.`is_paid` THEN 1 END) AS `paid_orders`
FROM `orders` AS `t0`
WHERE
  `t0`.`created_at` >= ? AND `t0`.`created_at` < ?
GROUP BY
  CAST(DATE_TRUNC('week', `t0`.`created_at`) AS DATE)
ORDER BY
  1 NULLS LAST
