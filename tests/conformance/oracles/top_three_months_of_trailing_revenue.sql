-- 2024's three months with the most revenue, each beside its total with the month before.
WITH monthly AS (
    SELECT CAST(date_trunc('month', ordered_on) AS DATE) AS month, sum(amount) AS revenue
    FROM orders
    WHERE ordered_on >= DATE '2023-12-01' AND ordered_on < DATE '2025-01-01'
      AND (order_status IS NULL OR order_status <> 'cancelled')
    GROUP BY month
), windowed AS (
    SELECT month, revenue,
           sum(revenue) OVER (ORDER BY month ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS trailing_total
    FROM monthly
)
SELECT month, revenue, trailing_total FROM windowed
WHERE month >= DATE '2024-01-01'
ORDER BY revenue DESC, month
LIMIT 3
