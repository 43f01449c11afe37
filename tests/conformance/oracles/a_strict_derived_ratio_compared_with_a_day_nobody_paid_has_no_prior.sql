-- Revenue per paying customer on 2026-01-12 beside 2026-01-11, when an order was paid by no
-- known customer: the prior's denominator is zero, so the prior, change and relative change
-- are NULL (only the returned row is checked for a zero denominator).
WITH days AS (
    SELECT ordered_on AS day,
           sum(amount) FILTER (WHERE order_status IS NULL OR order_status <> 'cancelled')
               AS revenue,
           count(DISTINCT customer_id) FILTER (WHERE is_paid) AS active
    FROM orders
    WHERE ordered_on >= DATE '2026-01-11' AND ordered_on < DATE '2026-01-13'
    GROUP BY ordered_on
), ratios AS (
    SELECT day, CASE WHEN active > 0 THEN CAST(revenue AS DECIMAL(18, 6)) / active END AS ratio
    FROM days
)
SELECT c.day, CAST(round(c.ratio, 6) AS DECIMAL(18, 6)),
       CAST(round(p.ratio, 6) AS DECIMAL(18, 6)),
       CAST(round(c.ratio - p.ratio, 6) AS DECIMAL(18, 6)),
       CAST(round((c.ratio - p.ratio) / p.ratio, 6) AS DECIMAL(18, 6))
FROM ratios AS c LEFT JOIN ratios AS p ON p.day = c.day - 1
WHERE c.day = DATE '2026-01-12'
