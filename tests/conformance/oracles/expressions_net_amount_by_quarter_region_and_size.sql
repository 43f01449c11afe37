SELECT CAST(date_trunc('quarter', o.ordered_on) AS DATE) AS period, c.sales_region AS region,
       CASE WHEN o.amount < 100 THEN 'small' WHEN o.amount < 300 THEN 'medium'
            WHEN o.amount >= 300 THEN 'large' END AS size,
       sum(o.amount * 0.9) FILTER (WHERE o.is_paid IS TRUE) AS net_amount
FROM orders AS o LEFT JOIN customers AS c ON c.customer_id = o.customer_id
WHERE o.ordered_on >= DATE '2024-01-01' AND o.ordered_on < DATE '2025-01-01'
  AND NOT coalesce(o.order_status IN ('cancelled'), false)
GROUP BY 1, 2, 3
ORDER BY 1, 2 NULLS LAST, 3 NULLS LAST
