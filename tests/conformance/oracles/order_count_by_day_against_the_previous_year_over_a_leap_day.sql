-- 27 February to 1 March 2024, each day beside the same day of 2023: 29 February is compared
-- with 28 February, like the 28th itself.
WITH daily AS (
    SELECT ordered_on AS day, count(order_id) AS orders
    FROM orders
    WHERE ((ordered_on >= DATE '2023-02-27' AND ordered_on < DATE '2023-03-02')
        OR (ordered_on >= DATE '2024-02-27' AND ordered_on < DATE '2024-03-02'))
      AND (order_status IS NULL OR order_status <> 'cancelled')
    GROUP BY day
)
SELECT m.day, m.orders, p.orders, m.orders - p.orders,
       CAST(round((m.orders - p.orders) / p.orders, 6) AS DECIMAL(18, 6))
FROM daily AS m LEFT JOIN daily AS p ON p.day = m.day - INTERVAL 1 YEAR
WHERE m.day >= DATE '2024-02-27'
ORDER BY m.day
