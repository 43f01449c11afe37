-- 2024's revenue less the revenue of returned orders, by quarter and channel.
WITH grouped AS (
    SELECT CAST(date_trunc('quarter', ordered_on) AS DATE) AS quarter,
           sales_channel AS channel,
           sum(amount) AS revenue,
           sum(amount) FILTER (WHERE was_returned) AS returned,
           count(*) FILTER (WHERE was_returned) AS returned_rows
    FROM orders
    WHERE ordered_on >= DATE '2024-01-01' AND ordered_on < DATE '2025-01-01'
      AND (order_status IS NULL OR order_status <> 'cancelled')
    GROUP BY quarter, channel
)
SELECT quarter, channel, revenue - returned FROM grouped ORDER BY quarter, channel NULLS LAST
