-- Every comparison, and, or, not: between, less_than, at_most, greater_than, not_equals of two
-- columns (NULL counts as different), equals with a boolean, a date of a related model
-- compared with the order's own.
SELECT CAST(date_trunc('quarter', o.ordered_on) AS DATE) AS period, o.sales_channel,
       count(*) FILTER (
           WHERE o.amount BETWEEN 10 AND 400.5 AND o.amount < 300
             AND o.ordered_on <= DATE '2025-06-30' AND o.customer_id > 5
             AND NOT coalesce(o.order_status = o.sales_channel, false)
             AND o.was_returned = false AND c.signed_up_on < o.ordered_on) AS picky_orders
FROM orders AS o LEFT JOIN customers AS c ON c.customer_id = o.customer_id
WHERE o.ordered_on >= DATE '2024-07-01' AND o.ordered_on < DATE '2026-04-01'
  AND (o.order_status IS NULL OR NOT coalesce(o.order_status IN ('returned', 'cancelled'), false))
GROUP BY 1, 2
ORDER BY 1, 2 NULLS LAST
