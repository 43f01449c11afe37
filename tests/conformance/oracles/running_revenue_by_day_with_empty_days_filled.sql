-- Every day of 5-13 January 2026: the 6th (only a cancelled order) and the 8th-10th are zero;
-- the 7th's only order has no amount (NULL, which the running total skips).
WITH days AS (
    SELECT CAST(d AS DATE) AS day
    FROM generate_series(DATE '2026-01-05', DATE '2026-01-13', INTERVAL 1 DAY) AS t(d)
), daily AS (
    SELECT ordered_on AS day, sum(amount) AS revenue
    FROM orders
    WHERE ordered_on >= DATE '2026-01-05' AND ordered_on < DATE '2026-01-14'
      AND (order_status IS NULL OR order_status <> 'cancelled')
    GROUP BY day
)
SELECT days.day,
       CASE WHEN daily.day IS NULL THEN CAST(0 AS DECIMAL(38, 2)) ELSE daily.revenue END,
       sum(daily.revenue) OVER (ORDER BY days.day)
FROM days LEFT JOIN daily ON daily.day = days.day
ORDER BY days.day
