-- top_two_regions_by_revenue_per_unit_per_quarter (spark)
-- question: {"dimensions": ["region"], "grain": "quarter", "metrics": ["revenue_per_unit", "units"], "top": {"by": "revenue_per_unit", "n": 2, "per": "period"}}
-- params:
--   1: str "complete"
--   2: str "complete"
--   3: str "complete"
--   4: str "complete"
--   5: date 2024-01-01
--   6: date 2024-04-01
--   7: int 2
SELECT
  *
FROM (
  SELECT
    CAST(DATE_TRUNC('quarter', `t0`.`created_at`) AS DATE) AS `period`,
    `t1`.`region` AS `region`,
    SUM(CASE WHEN `t0`.`status` = ? THEN `t0`.`amount` END) AS `revenue_per_unit.numerator`,
    SUM(CAST(CASE WHEN `t0`.`status` = ? THEN `t0`.`quantity` END AS DECIMAL(38, 0))) AS `revenue_per_unit.denominator`,
    SUM(CAST(`t0`.`quantity` AS DECIMAL(38, 0))) AS `units`,
    ROW_NUMBER() OVER (
      PARTITION BY CAST(DATE_TRUNC('quarter', `t0`.`created_at`) AS DATE)
      ORDER BY CAST(SUM(CASE WHEN `t0`.`status` = ? THEN `t0`.`amount` END) AS DOUBLE) / NULLIF(
        CAST(SUM(CAST(CASE WHEN `t0`.`status` = ? THEN `t0`.`quantity` END AS DECIMAL(38, 0))) AS DOUBLE),
        0
      ) DESC, `t1`.`region` NULLS LAST
    ) AS `top.rank`
  FROM `orders` AS `t0`
  LEFT JOIN `customers` AS `t1`
    ON `t0`.`customer_id` = `t1`.`customer_id`
  WHERE
    `t0`.`created_at` >= ? AND `t0`.`created_at` < ?
  GROUP BY
    CAST(DATE_TRUNC('quarter', `t0`.`created_at`) AS DATE),
    `t1`.`region`
) AS `ranked`
WHERE
  `ranked`.`top.rank` <= ?
ORDER BY
  1 NULLS LAST,
  `ranked`.`top.rank` NULLS LAST
