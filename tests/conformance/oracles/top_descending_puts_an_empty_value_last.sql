-- Descending too, a NULL revenue comes after every value (PostgreSQL's default puts it first).
SELECT ordered_on, sum(amount) AS revenue
FROM orders
WHERE ordered_on >= DATE '2026-01-01' AND ordered_on < DATE '2026-02-01'
  AND (order_status IS NULL OR order_status <> 'cancelled')
GROUP BY ordered_on
ORDER BY revenue DESC NULLS LAST, ordered_on
LIMIT 5
