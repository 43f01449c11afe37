-- Only months with at least one order not cancelled: February and March 2026 have none.
SELECT make_date(year(ordered_on), month(ordered_on), 1) AS month, sum(amount)
FROM orders
WHERE ordered_on >= DATE '2025-11-01' AND ordered_on < DATE '2026-04-01'
  AND (order_status IS NULL OR order_status <> 'cancelled')
GROUP BY month
ORDER BY month
