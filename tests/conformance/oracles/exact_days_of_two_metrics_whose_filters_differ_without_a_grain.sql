-- Revenue (not cancelled) and paying customers (paid) over 2026-01-05 to 2026-01-07, by
-- channel: a channel whose only order is cancelled and unpaid counts for neither, so has no row.
SELECT sales_channel,
       sum(amount) FILTER (WHERE order_status IS NULL OR order_status <> 'cancelled'),
       count(DISTINCT customer_id) FILTER (WHERE is_paid)
FROM orders
WHERE ordered_on >= DATE '2026-01-05' AND ordered_on < DATE '2026-01-08'
GROUP BY sales_channel
HAVING count(*) FILTER (WHERE order_status IS NULL OR order_status <> 'cancelled' OR is_paid) > 0
ORDER BY sales_channel NULLS LAST
