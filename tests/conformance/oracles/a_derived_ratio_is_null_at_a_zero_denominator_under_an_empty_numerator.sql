-- 2026-01-28's only order has no amount and no customer: revenue is NULL, nobody paid, and
-- the ratio is NULL (yields_null at a zero denominator, whatever the numerator).
SELECT ordered_on,
       CASE WHEN count(DISTINCT customer_id) FILTER (WHERE is_paid) > 0
            THEN CAST(sum(amount) AS DECIMAL(18, 6))
                 / count(DISTINCT customer_id) FILTER (WHERE is_paid) END
FROM orders
WHERE ordered_on = DATE '2026-01-28'
  AND (order_status IS NULL OR order_status <> 'cancelled' OR is_paid)
GROUP BY ordered_on
