-- revenue counts orders not cancelled (a NULL status included); active_customers counts paid
-- orders. A day is reported where at least one of them counts an order: the 6th, whose only
-- order is cancelled and unpaid, is not.
SELECT
    ordered_on,
    sum(amount) FILTER (WHERE order_status IS NULL OR order_status <> 'cancelled'),
    count(DISTINCT customer_id) FILTER (WHERE is_paid)
FROM orders
WHERE ordered_on >= DATE '2026-01-01' AND ordered_on < DATE '2026-02-01'
GROUP BY ordered_on
HAVING bool_or(order_status IS NULL OR order_status <> 'cancelled') OR bool_or(is_paid)
ORDER BY ordered_on
