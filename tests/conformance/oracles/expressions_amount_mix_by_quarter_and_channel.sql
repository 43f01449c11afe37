-- Every arithmetic node in one sum: a negation, a quotient cut after six places (by integer
-- division: the amount in cents times 10^4, over 7), a coalesce, a constant; NULL amounts add
-- nothing (the whole row is NULL).
SELECT CAST(date_trunc('quarter', ordered_on) AS DATE) AS period, sales_channel,
       sum(-amount
           + CAST(CAST((CAST(amount * 100 AS HUGEINT) * 10000) // 7 AS DECIMAL(38, 0))
                  * 0.000001 AS DECIMAL(38, 6))
           + coalesce(customer_id, 0) + 0.5) AS amount_mix
FROM orders
WHERE ordered_on >= DATE '2025-07-01' AND ordered_on < DATE '2026-04-01'
GROUP BY 1, 2
ORDER BY 1, 2 NULLS LAST
