-- Portable SQL (run on DuckDB and on PostgreSQL). Each buyer's largest paid order of the
-- quarter in each channel, summed across buyers by quarter and channel.
WITH largest AS (
    SELECT CAST(date_trunc('quarter', ordered_on) AS DATE) AS period, sales_channel,
           customer_id, max(CASE WHEN is_paid THEN amount END) AS amount
    FROM orders
    WHERE ordered_on >= DATE '2025-01-01' AND ordered_on < DATE '2026-01-01'
    GROUP BY 1, 2, 3
)
SELECT period, sales_channel, sum(amount)
FROM largest
GROUP BY period, sales_channel
ORDER BY 1, 2 NULLS LAST
