-- A product with a difference of constants (scale 3), where paid, status not cancelled with
-- NULL kept (not_in), grouped by a case over in, is_null and coalesce.
SELECT CAST(date_trunc('year', ordered_on) AS DATE) AS period,
       CASE WHEN order_status IN ('placed', 'shipped') THEN 'open'
            WHEN order_status IS NULL THEN 'unknown' ELSE coalesce(order_status, 'none') END,
       sum(amount * 0.9) FILTER (WHERE is_paid IS TRUE) AS net_amount
FROM orders
WHERE ordered_on >= DATE '2023-01-01' AND ordered_on < DATE '2027-01-01'
  AND NOT coalesce(order_status IN ('cancelled'), false)
GROUP BY 1, 2
ORDER BY 1, 2 NULLS LAST
