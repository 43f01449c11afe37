-- Portable SQL (run on DuckDB and on PostgreSQL). Each buyer's orders on the last day of the
-- ISO week the buyer ordered, the unknown buyer (NULL) one buyer among them, summed by week.
WITH kept AS (
    SELECT CAST(date_trunc('week', ordered_on) AS DATE) AS period, customer_id, ordered_on,
           amount
    FROM orders
    WHERE ordered_on >= DATE '2026-01-05' AND ordered_on < DATE '2026-02-02'
      AND order_status IS DISTINCT FROM 'cancelled'
), last_day AS (
    SELECT period, customer_id, max(ordered_on) AS day FROM kept GROUP BY period, customer_id
)
SELECT k.period, sum(k.amount)
FROM kept AS k JOIN last_day AS l
    ON l.period = k.period AND l.customer_id IS NOT DISTINCT FROM k.customer_id
   AND l.day = k.ordered_on
GROUP BY k.period
ORDER BY 1
