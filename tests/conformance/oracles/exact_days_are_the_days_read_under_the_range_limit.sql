-- 55 days asked without a grain are the 55 days read: within a limit of 55.
SELECT sum(amount)
FROM orders
WHERE ordered_on >= DATE '2024-01-15' AND ordered_on < DATE '2024-03-10'
  AND (order_status IS NULL OR order_status <> 'cancelled')
