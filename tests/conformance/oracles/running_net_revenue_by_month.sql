-- A running total of the first half of 2024's monthly revenue less returned revenue.
WITH grouped AS (
    SELECT CAST(date_trunc('month', ordered_on) AS DATE) AS month,
           sum(amount) - sum(amount) FILTER (WHERE was_returned) AS net
    FROM orders
    WHERE ordered_on >= DATE '2024-01-01' AND ordered_on < DATE '2024-07-01'
      AND (order_status IS NULL OR order_status <> 'cancelled')
    GROUP BY month
)
SELECT month, net, sum(net) OVER (ORDER BY month) FROM grouped ORDER BY month
