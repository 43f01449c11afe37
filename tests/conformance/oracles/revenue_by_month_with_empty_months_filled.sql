-- February and March 2026 have no order that is not cancelled: they are zero.
WITH months AS (
    SELECT CAST(d AS DATE) AS month
    FROM generate_series(DATE '2025-11-01', DATE '2026-03-01', INTERVAL 1 MONTH) AS t(d)
), monthly AS (
    SELECT CAST(date_trunc('month', ordered_on) AS DATE) AS month, sum(amount) AS revenue
    FROM orders
    WHERE ordered_on >= DATE '2025-11-01' AND ordered_on < DATE '2026-04-01'
      AND (order_status IS NULL OR order_status <> 'cancelled')
    GROUP BY month
)
SELECT months.month,
       CASE WHEN monthly.month IS NULL THEN CAST(0 AS DECIMAL(38, 2)) ELSE monthly.revenue END
FROM months LEFT JOIN monthly ON monthly.month = months.month
ORDER BY months.month
