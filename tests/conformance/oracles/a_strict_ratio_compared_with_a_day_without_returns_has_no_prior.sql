-- Phone orders per returned phone order on 2023-01-15 beside the day before, which had no
-- return: the prior's denominator is zero, so prior, change and relative change are NULL
-- although the ratio is defined to refuse a zero denominator (the prior day is not returned).
WITH days AS (
    SELECT ordered_on AS day, count(order_id) AS orders,
           count(*) FILTER (WHERE was_returned) AS returned
    FROM orders
    WHERE (order_status IS NULL OR order_status <> 'cancelled') AND sales_channel = 'phone'
      AND ordered_on >= DATE '2023-01-14' AND ordered_on < DATE '2023-01-16'
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
WHERE c.day = DATE '2023-01-15'
