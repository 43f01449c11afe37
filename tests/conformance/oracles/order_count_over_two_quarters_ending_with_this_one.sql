-- Today is 2025-03-15: with include_current, the current quarter is the last of the two, so
-- October 2024 to March 2025, the current quarter whole (its days after today included).
SELECT make_date(year(ordered_on), 3 * (quarter(ordered_on) - 1) + 1, 1) AS q, count(order_id)
FROM orders
WHERE ordered_on >= DATE '2024-10-01' AND ordered_on < DATE '2025-04-01'
  AND (order_status IS NULL OR order_status <> 'cancelled')
GROUP BY q
ORDER BY q
