-- Orders per customer signed up over exactly 2023-02-10 to 2023-11-19, by region: orders
-- grouped on their own model (region through the order's customer), signups on theirs.
WITH ordered AS (
    SELECT c.sales_region AS region, count(o.order_id) AS orders
    FROM orders AS o LEFT JOIN customers AS c ON c.customer_id = o.customer_id
    WHERE o.ordered_on >= DATE '2023-02-10' AND o.ordered_on < DATE '2023-11-20'
      AND (o.order_status IS NULL OR o.order_status <> 'cancelled')
    GROUP BY region
), signed AS (
    SELECT sales_region AS region, count(customer_id) AS signups
    FROM customers
    WHERE signed_up_on >= DATE '2023-02-10' AND signed_up_on < DATE '2023-11-20'
    GROUP BY region
)
SELECT coalesce(o.region, s.region) AS region,
       CASE WHEN s.signups IS NULL OR s.signups = 0 OR o.orders IS NULL THEN NULL
            ELSE CAST(round(CAST(o.orders AS DOUBLE) / s.signups, 6) AS DECIMAL(18, 6)) END
FROM ordered AS o FULL OUTER JOIN signed AS s ON o.region IS NOT DISTINCT FROM s.region
ORDER BY 1 NULLS LAST
