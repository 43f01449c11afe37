-- The region with the fewest orders in each quarter of 2024 (a customer's region; an order
-- without a customer has none, and ranks as the empty value does).
WITH ranked AS (
    SELECT CAST(date_trunc('quarter', o.ordered_on) AS DATE) AS quarter,
           c.sales_region AS region, count(o.order_id) AS orders, sum(o.amount) AS revenue,
           row_number() OVER (
               PARTITION BY CAST(date_trunc('quarter', o.ordered_on) AS DATE)
               ORDER BY count(o.order_id) ASC NULLS LAST, c.sales_region NULLS LAST
           ) AS position
    FROM orders AS o LEFT JOIN customers AS c ON c.customer_id = o.customer_id
    WHERE o.ordered_on >= DATE '2024-01-01' AND o.ordered_on < DATE '2025-01-01'
      AND (o.order_status IS NULL OR o.order_status <> 'cancelled')
    GROUP BY quarter, region
)
SELECT quarter, region, orders, revenue FROM ranked WHERE position <= 1 ORDER BY quarter
