-- Today is 2025-03-15: the last three whole months before the current one, December 2024 to
-- February 2025; the current month is left out.
SELECT make_date(year(o.ordered_on), month(o.ordered_on), 1) AS month, c.sales_region,
       sum(o.amount)
FROM orders AS o LEFT JOIN customers AS c ON o.customer_id = c.customer_id
WHERE o.ordered_on >= DATE '2024-12-01' AND o.ordered_on < DATE '2025-03-01'
  AND (o.order_status IS NULL OR o.order_status <> 'cancelled')
GROUP BY month, c.sales_region
ORDER BY month, c.sales_region NULLS LAST
