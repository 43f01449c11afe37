-- average_order_value_top_days (spark)
-- question: {"grain": "day", "metrics": ["order_count", "average_order_value"], "top": {"by": "average_order_value", "n": 3}}
-- params:
--   1: str "cancelled"
--   2: str "complete"
--   3: str "complete"
--   4: date 2024-01-01
--   5: date 2024-04-01
--   6: str "cancelled"
--   7: str "complete"
--   8: str "complete"
--   9: str "complete"
--   10: int 3
SELECT
  CAST(DATE_TRUNC('day', `t0`.`created_at`) AS DATE) AS `period`,
  COUNT(CASE WHEN `t0`.`status` IS DISTINCT FROM ? THEN `t0`.`order_id` END) AS `order_count`,
  SUM(CASE WHEN `t0`.`status` = ? THEN `t0`.`amount` END) AS `average_order_value.sum`,
  COUNT(CASE WHEN `t0`.`status` = ? THEN `t0`.`amount` END) AS `average_order_value.count`
FROM `orders` AS `t0`
WHERE
  `t0`.`created_at` >= ? AND `t0`.`created_at` < ?
GROUP BY
  CAST(DATE_TRUNC('day', `t0`.`created_at`) AS DATE)
HAVING
  COUNT(CASE WHEN `t0`.`status` IS DISTINCT FROM ? OR `t0`.`status` = ? THEN 1 END) > 0
ORDER BY
  CAST(SUM(CASE WHEN `t0`.`status` = ? THEN `t0`.`amount` END) AS DOUBLE) / NULLIF(CAST(COUNT(CASE WHEN `t0`.`status` = ? THEN `t0`.`amount` END) AS DOUBLE), 0) DESC,
  1 NULLS LAST
LIMIT ?
