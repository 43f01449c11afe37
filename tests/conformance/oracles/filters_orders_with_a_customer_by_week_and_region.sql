-- The range is widened to whole ISO weeks: 2025-12-29 to 2026-02-02.
-- is_not_null drops the orders without a customer, as a range or an equality would.
SELECT CAST(date_trunc('week', o.ordered_on) AS DATE) AS period, c.sales_region,
       count(o.order_id)
FROM orders AS o LEFT JOIN customers AS c ON c.customer_id = o.customer_id
WHERE o.ordered_on >= DATE '2025-12-29' AND o.ordered_on < DATE '2026-02-02'
  AND o.order_status IS DISTINCT FROM 'cancelled'
  AND c.customer_segment IS NOT NULL
GROUP BY 1, 2
ORDER BY 1, 2 NULLS LAST
