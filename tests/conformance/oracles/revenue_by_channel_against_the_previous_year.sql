-- Each quarter of 2025 and channel beside the same quarter and channel of 2024.
WITH quarterly AS (
    SELECT CAST(date_trunc('quarter', ordered_on) AS DATE) AS quarter,
           sales_channel AS channel, sum(amount) AS revenue
    FROM orders
    WHERE ordered_on >= DATE '2024-01-01' AND ordered_on < DATE '2026-01-01'
      AND (order_status IS NULL OR order_status <> 'cancelled')
    GROUP BY quarter, channel
)
SELECT c.quarter, c.channel, c.revenue, p.revenue, c.revenue - p.revenue,
       CAST(round((c.revenue - p.revenue) / p.revenue, 6) AS DECIMAL(18, 6))
FROM quarterly AS c
LEFT JOIN quarterly AS p
    ON p.quarter = c.quarter - INTERVAL 1 YEAR AND p.channel IS NOT DISTINCT FROM c.channel
WHERE c.quarter >= DATE '2025-01-01'
ORDER BY c.quarter, c.channel NULLS LAST
