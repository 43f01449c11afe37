-- Each month of 2024's first half beside the month before it (December 2023 is read, not shown).
WITH monthly AS (
    SELECT CAST(date_trunc('month', ordered_on) AS DATE) AS month,
           sum(amount) AS revenue, count(order_id) AS orders
    FROM orders
    WHERE ordered_on >= DATE '2023-12-01' AND ordered_on < DATE '2024-07-01'
      AND (order_status IS NULL OR order_status <> 'cancelled')
    GROUP BY month
)
SELECT m.month,
       m.revenue, p.revenue, m.revenue - p.revenue,
       CAST(round((m.revenue - p.revenue) / p.revenue, 6) AS DECIMAL(18, 6)),
       m.orders, p.orders, m.orders - p.orders,
       CAST(round((m.orders - p.orders) / p.orders, 6) AS DECIMAL(18, 6))
FROM monthly AS m LEFT JOIN monthly AS p ON p.month = m.month - INTERVAL 1 MONTH
WHERE m.month >= DATE '2024-01-01'
ORDER BY m.month
