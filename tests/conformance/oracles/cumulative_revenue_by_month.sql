-- A running total of 2024's monthly revenue.
WITH monthly AS (
    SELECT CAST(date_trunc('month', ordered_on) AS DATE) AS month, sum(amount) AS revenue
    FROM orders
    WHERE ordered_on >= DATE '2024-01-01' AND ordered_on < DATE '2025-01-01'
      AND (order_status IS NULL OR order_status <> 'cancelled')
    GROUP BY month
)
SELECT month, revenue, sum(revenue) OVER (ORDER BY month) FROM monthly ORDER BY month
