-- Orders per customer signed up, by quarter and region of 2023: orders grouped on their own
-- model (region through the order's customer), signups on theirs, joined on quarter and region.
WITH ordered AS (
    SELECT CAST(date_trunc('quarter', o.ordered_on) AS DATE) AS quarter, c.sales_region AS region,
           count(o.order_id) AS orders
    FROM orders AS o LEFT JOIN customers AS c ON c.customer_id = o.customer_id
    WHERE o.ordered_on >= DATE '2023-01-01' AND o.ordered_on < DATE '2024-01-01'
      AND (o.order_status IS NULL OR o.order_status <> 'cancelled')
    GROUP BY quarter, region
), signed AS (
    SELECT CAST(date_trunc('quarter', signed_up_on) AS DATE) AS quarter, sales_region AS region,
           count(customer_id) AS signups
    FROM customers
    WHERE signed_up_on >= DATE '2023-01-01' AND signed_up_on < DATE '2024-01-01'
    GROUP BY quarter, region
)
SELECT coalesce(o.quarter, s.quarter) AS quarter, coalesce(o.region, s.region) AS region,
       CASE WHEN s.signups IS NULL OR s.signups = 0 OR o.orders IS NULL THEN NULL
            ELSE CAST(round(CAST(o.orders AS DOUBLE) / s.signups, 6) AS DECIMAL(18, 6)) END
FROM ordered AS o FULL OUTER JOIN signed AS s
    ON o.quarter = s.quarter AND o.region IS NOT DISTINCT FROM s.region
ORDER BY 1, 2 NULLS LAST
