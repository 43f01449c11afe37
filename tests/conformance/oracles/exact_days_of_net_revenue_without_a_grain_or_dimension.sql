-- Revenue less the revenue of returned orders over exactly 2024-02-29 to 2024-10-01: one row.
SELECT sum(amount) - sum(amount) FILTER (WHERE was_returned)
FROM orders
WHERE ordered_on >= DATE '2024-02-29' AND ordered_on < DATE '2024-10-02'
  AND (order_status IS NULL OR order_status <> 'cancelled')
