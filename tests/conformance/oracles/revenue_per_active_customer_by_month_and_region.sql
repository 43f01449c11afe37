-- Revenue per paying customer, by month and region of the first quarter of 2024.
WITH grouped AS (
    SELECT CAST(date_trunc('month', o.ordered_on) AS DATE) AS month, c.sales_region AS region,
           sum(o.amount) FILTER (WHERE o.order_status IS NULL OR o.order_status <> 'cancelled')
               AS revenue,
           count(DISTINCT o.customer_id) FILTER (WHERE o.is_paid) AS active,
           count(*) FILTER (WHERE o.order_status IS NULL OR o.order_status <> 'cancelled')
               AS revenue_rows,
           count(*) FILTER (WHERE o.is_paid) AS active_rows
    FROM orders AS o LEFT JOIN customers AS c ON c.customer_id = o.customer_id
    WHERE o.ordered_on >= DATE '2024-01-01' AND o.ordered_on < DATE '2024-04-01'
    GROUP BY month, region
)
SELECT month, region,
       CASE WHEN active = 0 THEN NULL
            ELSE CAST(round(revenue / active, 6) AS DECIMAL(18, 6)) END
FROM grouped WHERE revenue_rows > 0 OR active_rows > 0
ORDER BY month, region NULLS LAST
