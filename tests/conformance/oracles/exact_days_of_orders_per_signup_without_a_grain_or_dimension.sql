-- Orders per customer signed up over exactly 2023-02-10 to 2023-11-19, one row: each model
-- counted on its own, then the two joined (neither has a group of its own to join on).
WITH ordered AS (
    SELECT count(order_id) AS orders
    FROM orders
    WHERE ordered_on >= DATE '2023-02-10' AND ordered_on < DATE '2023-11-20'
      AND (order_status IS NULL OR order_status <> 'cancelled')
    HAVING count(*) > 0
), signed AS (
    SELECT count(customer_id) AS signups
    FROM customers
    WHERE signed_up_on >= DATE '2023-02-10' AND signed_up_on < DATE '2023-11-20'
    HAVING count(*) > 0
)
SELECT CASE WHEN s.signups IS NULL OR s.signups = 0 OR o.orders IS NULL THEN NULL
            ELSE CAST(round(CAST(o.orders AS DOUBLE) / s.signups, 6) AS DECIMAL(18, 6)) END
FROM ordered AS o FULL OUTER JOIN signed AS s ON true
