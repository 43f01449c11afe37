-- The first half of March 2024 on the phone holds days without a return (the same question
-- without top is refused), but top keeps the day with the most orders per return, and the
-- days it leaves out are never checked.
WITH days AS (
    SELECT ordered_on AS day, count(order_id) AS orders,
           count(*) FILTER (WHERE was_returned) AS returned
    FROM orders
    WHERE (order_status IS NULL OR order_status <> 'cancelled') AND sales_channel = 'phone'
      AND ordered_on >= DATE '2024-02-29' AND ordered_on < DATE '2024-03-15'
    GROUP BY ordered_on
), ratios AS (
    SELECT day, CASE WHEN returned > 0 THEN CAST(orders AS DECIMAL(18, 6)) / returned END AS ratio
    FROM days
)
SELECT c.day, CAST(round(c.ratio, 6) AS DECIMAL(18, 6)),
       CAST(round(p.ratio, 6) AS DECIMAL(18, 6)),
       CAST(round(c.ratio - p.ratio, 6) AS DECIMAL(18, 6)),
       CAST(round((c.ratio - p.ratio) / p.ratio, 6) AS DECIMAL(18, 6))
FROM ratios AS c LEFT JOIN ratios AS p ON p.day = c.day - 1
WHERE c.day >= DATE '2024-03-01'
ORDER BY c.ratio DESC NULLS LAST, c.day
LIMIT 1
