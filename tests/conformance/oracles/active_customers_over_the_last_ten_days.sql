-- Today is 2025-03-15: the ten whole days before today, 2025-03-05 to 2025-03-14.
SELECT ordered_on, count(DISTINCT customer_id)
FROM orders
WHERE ordered_on >= DATE '2025-03-05' AND ordered_on < DATE '2025-03-15' AND is_paid
GROUP BY ordered_on
ORDER BY ordered_on
