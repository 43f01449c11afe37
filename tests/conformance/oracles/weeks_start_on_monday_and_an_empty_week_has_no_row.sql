-- ISO weeks: each starts on the Monday on or before its day (isodow: Monday 1 … Sunday 7). The
-- range widens to whole weeks, Monday 2025-12-29 to Monday 2026-02-02; a week without orders
-- (from 2026-01-19) has no row.
SELECT ordered_on - CAST(isodow(ordered_on) - 1 AS INTEGER) AS week, count(order_id)
FROM orders
WHERE ordered_on >= DATE '2025-12-29' AND ordered_on < DATE '2026-02-02'
  AND (order_status IS NULL OR order_status <> 'cancelled')
GROUP BY week
ORDER BY week
