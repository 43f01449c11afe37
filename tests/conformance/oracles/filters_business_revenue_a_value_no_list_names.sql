-- segment lists no values: any value in the data may be filtered on.
SELECT CAST(date_trunc('quarter', o.ordered_on) AS DATE) AS period, o.sales_channel,
       sum(o.amount)
FROM orders AS o LEFT JOIN customers AS c ON c.customer_id = o.customer_id
WHERE o.ordered_on >= DATE '2024-01-01' AND o.ordered_on < DATE '2025-01-01'
  AND o.order_status IS DISTINCT FROM 'cancelled'
  AND c.customer_segment = 'business'
GROUP BY 1, 2
ORDER BY 1, 2 NULLS LAST
