-- A NULL status is not "cancelled": those orders count.
SELECT ordered_on, count(order_id)
FROM orders
WHERE ordered_on >= DATE '2026-01-01' AND ordered_on < DATE '2026-02-01'
  AND (order_status IS NULL OR order_status <> 'cancelled')
GROUP BY ordered_on
ORDER BY ordered_on
