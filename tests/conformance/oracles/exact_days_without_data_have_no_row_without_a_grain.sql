-- No order in January 2027: no row (not one row of a zero count and a NULL average).
SELECT count(order_id), sum(amount) / count(order_id)
FROM orders
WHERE ordered_on >= DATE '2027-01-01' AND ordered_on < DATE '2027-02-01'
  AND (order_status IS NULL OR order_status <> 'cancelled')
HAVING count(*) > 0
