-- Revenue per paying customer in each quarter of 2025 beside the same quarter of 2024.
WITH grouped AS (
    SELECT CAST(date_trunc('quarter', ordered_on) AS DATE) AS quarter,
           sum(amount) FILTER (WHERE order_status IS NULL OR order_status <> 'cancelled')
               AS revenue,
           count(DISTINCT customer_id) FILTER (WHERE is_paid) AS active
    FROM orders
    WHERE ordered_on >= DATE '2024-01-01' AND ordered_on < DATE '2026-01-01'
    GROUP BY quarter
), ratios AS (
    SELECT quarter, CAST(revenue AS DOUBLE) / active AS ratio FROM grouped
)
SELECT c.quarter, CAST(round(c.ratio, 6) AS DECIMAL(18, 6)),
       CAST(round(p.ratio, 6) AS DECIMAL(18, 6)),
       CAST(round(c.ratio - p.ratio, 6) AS DECIMAL(18, 6)),
       CAST(round((c.ratio - p.ratio) / p.ratio, 6) AS DECIMAL(18, 6))
FROM ratios AS c LEFT JOIN ratios AS p ON p.quarter = c.quarter - INTERVAL 1 YEAR
WHERE c.quarter >= DATE '2025-01-01'
ORDER BY c.quarter
