-- The range is widened to whole ISO weeks: 2025-12-29 to 2026-02-02.
-- The range is widened to whole ISO weeks: 2025-12-29 to 2026-02-02.
-- is_null on a dimension reached through a relationship keeps the orders without a customer
-- (the join stays LEFT): their region reads NULL.
SELECT CAST(date_trunc('week', o.ordered_on) AS DATE) AS period, count(o.order_id)
FROM orders AS o LEFT JOIN customers AS c ON c.customer_id = o.customer_id
WHERE o.ordered_on >= DATE '2025-12-29' AND o.ordered_on < DATE '2026-02-02'
  AND o.order_status IS DISTINCT FROM 'cancelled'
  AND c.sales_region IS NULL
GROUP BY 1
ORDER BY 1
