-- Four groups tie at the smallest revenue; the first three by day, then region with the
-- missing customer's NULL region last, are kept.
SELECT o.ordered_on, c.sales_region, sum(o.amount) AS revenue
FROM orders AS o LEFT JOIN customers AS c ON o.customer_id = c.customer_id
WHERE o.ordered_on >= DATE '2026-01-01' AND o.ordered_on < DATE '2026-02-01'
  AND (o.order_status IS NULL OR o.order_status <> 'cancelled')
GROUP BY o.ordered_on, c.sales_region
ORDER BY revenue ASC NULLS LAST, o.ordered_on, c.sales_region NULLS LAST
LIMIT 3
