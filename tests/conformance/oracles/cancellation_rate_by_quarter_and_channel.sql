-- Cancelled orders as a percentage of every order placed (the orders not cancelled, a status
-- unknown among them, and those cancelled), by quarter and channel of 2024: 100 times the one
-- count over the other, exact to six places and rounded half to even by integer arithmetic.
WITH counted AS (
    SELECT CAST(date_trunc('quarter', ordered_on) AS DATE) AS quarter, sales_channel AS channel,
           CAST(count(CASE WHEN order_status = 'cancelled' THEN order_id END) AS HUGEINT)
               * 100 * 1000000 AS scaled,
           count(order_id) AS placed
    FROM orders
    WHERE ordered_on >= DATE '2024-01-01' AND ordered_on < DATE '2025-01-01'
    GROUP BY quarter, channel
), divided AS (
    SELECT quarter, channel, placed, scaled // placed AS q, scaled % placed AS r
    FROM counted
)
SELECT quarter, channel,
       CAST((q + CASE WHEN 2 * r > placed OR (2 * r = placed AND q % 2 = 1) THEN 1 ELSE 0 END)
            / 1000000.0 AS DECIMAL(18, 6))
FROM divided
ORDER BY 1, 2 NULLS LAST
