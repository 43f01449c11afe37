-- revenue_per_unit_top_region (spark)
-- question: {"dimensions": ["region"], "filters": [{"dimension": "region", "op": "in", "values": ["EU", "US"]}], "grain": "quarter", "metrics": ["revenue_per_unit", "revenue"], "top": {"by": "revenue_per_unit", "n": 1}}
-- params:
--   1: date 2024-01-01
--   2: date 2024-04-01
--   3: str "complete"
--   4: str "EU"
--   5: str "US"
--   6: int 1
SELECT
  CAST(DATE_TRUNC('quarter', `t0`.`created_at`) AS DATE) AS `period`,
  `t1`.`region` AS `region`,
  SUM(`t0`.`amount`) AS `revenue_per_unit.numerator`,
  SUM(CAST(`t0`.`quantity` AS DECIMAL(38, 0))) AS `revenue_per_unit.denominator`,
  SUM(`t0`.`amount`) AS `revenue`
FROM `orders` AS `t0`
INNER JOIN `customers` AS `t1`
  ON `t0`.`customer_id` = `t1`.`customer_id`
WHERE
  `t0`.`created_at` >= ?
  AND `t0`.`created_at` < ?
  AND `t0`.`status` = ?
  AND `t1`.`region` IN (?, ?)
GROUP BY
  CAST(DATE_TRUNC('quarter', `t0`.`created_at`) AS DATE),
  `t1`.`region`
ORDER BY
  CAST(SUM(`t0`.`amount`) AS DOUBLE) / NULLIF(CAST(SUM(CAST(`t0`.`quantity` AS DECIMAL(38, 0))) AS DOUBLE), 0) DESC,
  1 NULLS LAST,
  2 NULLS LAST
LIMIT ?
