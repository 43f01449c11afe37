-- The four days of 5-18 January 2026 with the fewest orders, empty days (zero) included; ties
-- by day.
WITH days AS (
    SELECT CAST(d AS DATE) AS day
    FROM generate_series(DATE '2026-01-05', DATE '2026-01-18', INTERVAL 1 DAY) AS t(d)
), daily AS (
    SELECT ordered_on AS day, count(order_id) AS orders
    FROM orders
    WHERE ordered_on >= DATE '2026-01-05' AND ordered_on < DATE '2026-01-19'
      AND (order_status IS NULL OR order_status <> 'cancelled')
    GROUP BY day
)
SELECT days.day, coalesce(daily.orders, 0) AS orders
FROM days LEFT JOIN daily ON daily.day = days.day
ORDER BY orders, days.day
LIMIT 4
