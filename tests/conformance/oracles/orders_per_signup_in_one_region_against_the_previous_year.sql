-- Orders per signup in the north, 2024 and 2025 each beside the year before; 2025 has orders
-- but no signups, so its value (and its change) is NULL.
WITH ordered AS (
    SELECT CAST(date_trunc('year', o.ordered_on) AS DATE) AS year, count(o.order_id) AS orders
    FROM orders AS o JOIN customers AS c ON c.customer_id = o.customer_id
    WHERE o.ordered_on >= DATE '2023-01-01' AND o.ordered_on < DATE '2026-01-01'
      AND (o.order_status IS NULL OR o.order_status <> 'cancelled') AND c.sales_region = 'north'
    GROUP BY year
), signed AS (
    SELECT CAST(date_trunc('year', signed_up_on) AS DATE) AS year, count(customer_id) AS signups
    FROM customers
    WHERE signed_up_on >= DATE '2023-01-01' AND signed_up_on < DATE '2026-01-01'
      AND sales_region = 'north'
    GROUP BY year
), ratios AS (
    SELECT coalesce(o.year, s.year) AS year,
           CASE WHEN s.signups > 0 THEN CAST(o.orders AS DOUBLE) / s.signups END AS ratio
    FROM ordered AS o FULL OUTER JOIN signed AS s ON o.year = s.year
)
SELECT c.year, CAST(round(c.ratio, 6) AS DECIMAL(18, 6)), CAST(round(p.ratio, 6) AS DECIMAL(18, 6)),
       CAST(round(c.ratio - p.ratio, 6) AS DECIMAL(18, 6)),
       CAST(round((c.ratio - p.ratio) / p.ratio, 6) AS DECIMAL(18, 6))
FROM ratios AS c LEFT JOIN ratios AS p ON p.year = c.year - INTERVAL 1 YEAR
WHERE c.year >= DATE '2024-01-01'
ORDER BY c.year
