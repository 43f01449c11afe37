-- The two channels with the most revenue in each month of 2024's first half.
WITH ranked AS (
    SELECT CAST(date_trunc('month', ordered_on) AS DATE) AS month,
           sales_channel AS channel, sum(amount) AS revenue,
           row_number() OVER (
               PARTITION BY CAST(date_trunc('month', ordered_on) AS DATE)
               ORDER BY sum(amount) DESC NULLS LAST, sales_channel NULLS LAST
           ) AS position
    FROM orders
    WHERE ordered_on >= DATE '2024-01-01' AND ordered_on < DATE '2024-07-01'
      AND (order_status IS NULL OR order_status <> 'cancelled')
    GROUP BY month, channel
)
SELECT month, channel, revenue FROM ranked WHERE position <= 2 ORDER BY month, position
