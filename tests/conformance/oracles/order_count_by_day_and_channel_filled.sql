-- Every day of 5-12 January 2026 for every channel with an order in the range; zero elsewhere.
WITH days AS (
    SELECT CAST(d AS DATE) AS day
    FROM generate_series(DATE '2026-01-05', DATE '2026-01-12', INTERVAL 1 DAY) AS t(d)
), counted AS (
    SELECT ordered_on AS day, sales_channel AS channel, count(order_id) AS orders
    FROM orders
    WHERE ordered_on >= DATE '2026-01-05' AND ordered_on < DATE '2026-01-13'
      AND (order_status IS NULL OR order_status <> 'cancelled')
    GROUP BY day, channel
), channels AS (SELECT DISTINCT channel FROM counted)
SELECT days.day, channels.channel, coalesce(counted.orders, 0)
FROM days CROSS JOIN channels
LEFT JOIN counted
    ON counted.day = days.day AND counted.channel IS NOT DISTINCT FROM channels.channel
ORDER BY days.day, channels.channel NULLS LAST
