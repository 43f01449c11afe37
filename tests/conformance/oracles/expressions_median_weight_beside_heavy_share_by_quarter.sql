-- A median asked beside a ratio: one statement ranks the rows, then groups them.
WITH grouped AS (
    SELECT CAST(date_trunc('quarter', shipped_at) AS DATE) AS period,
           list_sort(list(weight_kg)) AS sorted,
           count(*) FILTER (WHERE weight_kg > 5) AS heavy, count(*) AS parcels
    FROM parcels
    WHERE shipped_at >= TIMESTAMPTZ '2024-01-01 00:00:00+00'
      AND shipped_at < TIMESTAMPTZ '2025-01-01 00:00:00+00'
    GROUP BY 1
), scaled AS (
    SELECT *, (CAST(heavy AS HUGEINT) * 1000000) // parcels AS whole,
           (CAST(heavy AS HUGEINT) * 1000000) % parcels AS rest
    FROM grouped
)
SELECT period,
       CAST((sorted[(len(sorted) - 1) // 2 + 1] + sorted[len(sorted) // 2 + 1]) / 2
            AS DECIMAL(38, 4)),
       CAST(CAST(whole + CASE WHEN 2 * rest > parcels OR (2 * rest = parcels AND whole % 2 = 1)
                              THEN 1 ELSE 0 END AS DECIMAL(38, 0)) * 0.000001 AS DECIMAL(38, 6))
FROM scaled
ORDER BY 1
