-- A dimension that chooses past a missing customer (coalesce) keeps the LEFT join under its
-- filters: the orders without a customer read 1900-01-01 there, and are kept.
SELECT CAST(date_trunc('month', o.ordered_on) AS DATE) AS period,
       coalesce(c.signed_up_on, DATE '1900-01-01') AS signup_or_never,
       sum(-o.amount
           + CAST(CAST((CAST(o.amount * 100 AS HUGEINT) * 10000) // 7 AS DECIMAL(38, 0))
                  * 0.000001 AS DECIMAL(38, 6))
           + coalesce(o.customer_id, 0) + 0.5) AS amount_mix
FROM orders AS o LEFT JOIN customers AS c ON c.customer_id = o.customer_id
WHERE o.ordered_on >= DATE '2025-12-01' AND o.ordered_on < DATE '2026-02-01'
  AND coalesce(c.signed_up_on, DATE '1900-01-01') < DATE '2000-01-01'
GROUP BY 1, 2
ORDER BY 1, 2 NULLS LAST
