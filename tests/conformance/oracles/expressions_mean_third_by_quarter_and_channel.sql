-- The average of thirds cut after six places, divided exactly and rounded half to even.
WITH thirds AS (
    SELECT CAST(date_trunc('quarter', ordered_on) AS DATE) AS period, sales_channel,
           (CAST(amount * 100 AS HUGEINT) * 10000) // 3 AS micros
    FROM orders
    WHERE ordered_on >= DATE '2024-01-01' AND ordered_on < DATE '2025-01-01'
), grouped AS (
    SELECT period, sales_channel, sum(micros) AS total, count(micros) AS n FROM thirds GROUP BY 1, 2
), scaled AS (
    SELECT *, total // n AS whole, total % n AS rest FROM grouped
)
SELECT period, sales_channel,
       CAST(CAST(whole + CASE WHEN 2 * rest > n OR (2 * rest = n AND whole % 2 = 1) THEN 1
                              ELSE 0 END AS DECIMAL(38, 0)) * 0.000001 AS DECIMAL(38, 6))
FROM scaled
ORDER BY 1, 2 NULLS LAST
