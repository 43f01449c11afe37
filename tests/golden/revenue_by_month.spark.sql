-- revenue_by_month (spark)
-- question: {}
-- params:
--   1: date 2024-01-01
--   2: date 2024-04-01
--   3: str "complete"
SELECT
  CAST(DATE_TRUNC('month', `t0`.`created_at`) AS DATE) AS `period`,
  SUM(`t0`.`amount`) AS `revenue`
FROM `orders` AS `t0`
WHERE
  `t0`.`created_at` >= ? AND `t0`.`created_at` < ? AND `t0`.`status` = ?
GROUP BY
  CAST(DATE_TRUNC('month', `t0`.`created_at`) AS DATE)
ORDER BY
  1 NULLS LAST
