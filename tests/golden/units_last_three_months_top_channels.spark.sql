-- units_last_three_months_top_channels (spark)
-- question: {"dimensions": ["channel"], "metrics": ["units", "order_count"], "range": {"last": {"count": 3, "include_current": true, "unit": "month"}}, "top": {"by": "order_count", "direction": "desc", "n": 2}}
-- params:
--   1: str "cancelled"
--   2: date 2024-03-01
--   3: date 2024-06-01
--   4: int 2
SELECT
  CAST(DATE_TRUNC('month', `t0`.`created_at`) AS DATE) AS `period`,
  `t0`.`channel` AS `channel`,
  SUM(CAST(`t0`.`quantity` AS DECIMAL(38, 0))) AS `units`,
  COUNT(CASE WHEN `t0`.`status` IS DISTINCT FROM ? THEN `t0`.`order_id` END) AS `order_count`
FROM `orders` AS `t0`
WHERE
  `t0`.`created_at` >= ? AND `t0`.`created_at` < ?
GROUP BY
  CAST(DATE_TRUNC('month', `t0`.`created_at`) AS DATE),
  `t0`.`channel`
ORDER BY
  4 DESC,
  1 NULLS LAST,
  2 NULLS LAST
LIMIT ?
