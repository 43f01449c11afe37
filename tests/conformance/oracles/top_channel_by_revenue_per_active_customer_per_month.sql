-- In each month of January to April 2024, the channel with the most revenue per paying customer.
WITH grouped AS (
    SELECT CAST(date_trunc('month', ordered_on) AS DATE) AS month, sales_channel AS channel,
           sum(amount) FILTER (WHERE order_status IS NULL OR order_status <> 'cancelled')
               AS revenue,
           count(DISTINCT customer_id) FILTER (WHERE is_paid) AS active
    FROM orders
    WHERE ordered_on >= DATE '2024-01-01' AND ordered_on < DATE '2024-05-01'
    GROUP BY month, channel
), ranked AS (
    SELECT month, channel, CAST(revenue AS DOUBLE) / nullif(active, 0) AS ratio,
           row_number() OVER (PARTITION BY month
                              ORDER BY CAST(revenue AS DOUBLE) / nullif(active, 0) DESC NULLS LAST,
                                       channel NULLS LAST) AS rank
    FROM grouped
)
SELECT month, channel, CAST(round(ratio, 6) AS DECIMAL(18, 6)) FROM ranked WHERE rank = 1
ORDER BY month
