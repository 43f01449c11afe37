-- derived_revenue_per_order_by_channel_without_a_grain (spark)
-- question: {"dimensions": ["channel"], "grain": null, "metrics": ["revenue_per_order"], "range": {"end": "2024-03-10", "start": "2024-01-15"}}
-- params:
--   1: str "complete"
--   2: str "cancelled"
--   3: date 2024-01-15
--   4: date 2024-03-10
--   5: str "complete"
--   6: str "cancelled"
SELECT
  `t0`.`channel` AS `channel`,
  SUM(CASE WHEN `t0`.`status` = ? THEN `t0`.`amount` END) AS `revenue`,
  COUNT(CASE WHEN `t0`.`status` IS DISTINCT FROM ? THEN `t0`.`order_id` END) AS `order_count`
FROM `orders` AS `t0`
WHERE
  `t0`.`created_at` >= ? AND `t0`.`created_at` < ?
GROUP BY
  `t0`.`channel`
HAVING
  COUNT(CASE WHEN `t0`.`status` = ? OR `t0`.`status` IS DISTINCT FROM ? THEN 1 END) > 0
ORDER BY
  1 NULLS LAST
