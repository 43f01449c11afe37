-- The three regions with the most revenue in each week of 5-18 January 2026: orders without a
-- customer have no region (NULL, ranked after every region at equal revenue).
WITH ranked AS (
    SELECT CAST(date_trunc('week', o.ordered_on) AS DATE) AS week,
           c.sales_region AS region, sum(o.amount) AS revenue,
           row_number() OVER (
               PARTITION BY CAST(date_trunc('week', o.ordered_on) AS DATE)
               ORDER BY sum(o.amount) DESC NULLS LAST, c.sales_region NULLS LAST
           ) AS position
    FROM orders AS o LEFT JOIN customers AS c ON c.customer_id = o.customer_id
    WHERE o.ordered_on >= DATE '2026-01-05' AND o.ordered_on < DATE '2026-01-19'
      AND (o.order_status IS NULL OR o.order_status <> 'cancelled')
    GROUP BY week, region
)
SELECT week, region, revenue FROM ranked WHERE position <= 3 ORDER BY week, position
