-- Net revenue (revenue less the revenue of returned orders, cancelled orders left out of both)
-- per customer signed up, by quarter and region of 2023: the orders grouped on their own model
-- (region through the order's customer), the signups on theirs, joined on quarter and region;
-- exact to six places, rounded half to even by integer arithmetic on cents.
WITH ordered AS (
    SELECT CAST(date_trunc('quarter', o.ordered_on) AS DATE) AS quarter, c.sales_region AS region,
           sum(o.amount) AS revenue, sum(CASE WHEN o.was_returned THEN o.amount END) AS returned
    FROM orders AS o LEFT JOIN customers AS c ON c.customer_id = o.customer_id
    WHERE o.ordered_on >= DATE '2023-01-01' AND o.ordered_on < DATE '2024-01-01'
      AND o.order_status IS DISTINCT FROM 'cancelled'
    GROUP BY quarter, region
), signed AS (
    SELECT CAST(date_trunc('quarter', signed_up_on) AS DATE) AS quarter, sales_region AS region,
           count(customer_id) AS signups
    FROM customers
    WHERE signed_up_on >= DATE '2023-01-01' AND signed_up_on < DATE '2024-01-01'
    GROUP BY quarter, region
), joined AS (
    SELECT coalesce(o.quarter, s.quarter) AS quarter, coalesce(o.region, s.region) AS region,
           CAST((o.revenue - o.returned) * 100 AS HUGEINT) * 10000 AS scaled, s.signups
    FROM ordered AS o FULL OUTER JOIN signed AS s
        ON o.quarter = s.quarter AND o.region IS NOT DISTINCT FROM s.region
), divided AS (
    SELECT quarter, region, signups, scaled // signups AS q, scaled % signups AS r FROM joined
)
SELECT quarter, region,
       CAST((q + CASE WHEN 2 * r > signups OR (2 * r = signups AND q % 2 = 1) THEN 1 ELSE 0 END)
            / 1000000.0 AS DECIMAL(18, 6))
FROM divided
ORDER BY 1, 2 NULLS LAST
