-- The orders of each channel over the three months ending with each month (November and
-- December 2023 are read for January and February, not shown).
WITH monthly AS (
    SELECT CAST(date_trunc('month', ordered_on) AS DATE) AS month,
           sales_channel AS channel, count(order_id) AS orders
    FROM orders
    WHERE ordered_on >= DATE '2023-11-01' AND ordered_on < DATE '2024-07-01'
      AND (order_status IS NULL OR order_status <> 'cancelled')
    GROUP BY month, channel
)
SELECT c.month, c.channel, c.orders,
       (SELECT sum(p.orders) FROM monthly AS p
        WHERE p.channel IS NOT DISTINCT FROM c.channel
          AND p.month > c.month - INTERVAL 3 MONTH AND p.month <= c.month)
FROM monthly AS c
WHERE c.month >= DATE '2024-01-01'
ORDER BY c.month, c.channel NULLS LAST
