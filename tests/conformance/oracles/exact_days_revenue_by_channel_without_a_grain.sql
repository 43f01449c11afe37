-- Revenue over exactly 2024-01-15 to 2024-03-09 (no grain: nothing widened), by channel.
SELECT sales_channel, sum(amount)
FROM orders
WHERE ordered_on >= DATE '2024-01-15' AND ordered_on < DATE '2024-03-10'
  AND (order_status IS NULL OR order_status <> 'cancelled')
GROUP BY sales_channel
ORDER BY sales_channel NULLS LAST
