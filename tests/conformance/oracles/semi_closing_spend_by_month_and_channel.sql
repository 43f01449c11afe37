-- Portable SQL (run on DuckDB and on PostgreSQL). Each buyer's orders (not cancelled) on the
-- last day of the month the buyer ordered, every order of that day, summed by month and
-- channel: the channel of the orders taken, NULL amounts skipped.
WITH kept AS (
    SELECT CAST(date_trunc('month', ordered_on) AS DATE) AS period, customer_id, ordered_on,
           sales_channel, amount
    FROM orders
    WHERE ordered_on >= DATE '2024-01-01' AND ordered_on < DATE '2024-04-01'
      AND order_status IS DISTINCT FROM 'cancelled'
), last_day AS (
    SELECT period, customer_id, max(ordered_on) AS day FROM kept GROUP BY period, customer_id
)
SELECT k.period, k.sales_channel, sum(k.amount)
FROM kept AS k JOIN last_day AS l
    ON l.period = k.period AND l.customer_id IS NOT DISTINCT FROM k.customer_id
   AND l.day = k.ordered_on
GROUP BY k.period, k.sales_channel
ORDER BY 1, 2 NULLS LAST
