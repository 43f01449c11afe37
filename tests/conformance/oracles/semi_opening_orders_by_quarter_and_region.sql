-- Portable SQL (run on DuckDB and on PostgreSQL, whose regions are CHAR(8): trimmed). Each
-- buyer's orders (not cancelled) on the first day of the quarter the buyer ordered, counted by
-- quarter and the buyer's region.
WITH kept AS (
    SELECT CAST(date_trunc('quarter', o.ordered_on) AS DATE) AS period, o.customer_id,
           o.ordered_on, rtrim(c.sales_region) AS region, o.order_id
    FROM orders AS o LEFT JOIN customers AS c ON c.customer_id = o.customer_id
    WHERE o.ordered_on >= DATE '2024-01-01' AND o.ordered_on < DATE '2025-01-01'
      AND o.order_status IS DISTINCT FROM 'cancelled'
), first_day AS (
    SELECT period, customer_id, min(ordered_on) AS day FROM kept GROUP BY period, customer_id
)
SELECT k.period, k.region, count(k.order_id)
FROM kept AS k JOIN first_day AS f
    ON f.period = k.period AND f.customer_id IS NOT DISTINCT FROM k.customer_id
   AND f.day = k.ordered_on
GROUP BY k.period, k.region
ORDER BY 1, 2 NULLS LAST
