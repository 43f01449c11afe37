-- The 0.90 percentile of a third of the weight, each third cut after six places: the value at
-- position (n - 1) * 0.9 of the sorted values, between its neighbours, at scale 7.
WITH thirds AS (
    SELECT CAST(date_trunc('quarter', shipped_at) AS DATE) AS period, carrier,
           CAST(CAST((CAST(weight_kg * 1000 AS BIGINT) * 1000) // 3 AS DECIMAL(38, 0))
                * 0.000001 AS DECIMAL(38, 6)) AS third
    FROM parcels
    WHERE shipped_at >= TIMESTAMPTZ '2024-01-01 00:00:00+00'
      AND shipped_at < TIMESTAMPTZ '2025-01-01 00:00:00+00'
), grouped AS (
    SELECT period, carrier, list_sort(list(third)) AS sorted, count(*) - 1 AS last
    FROM thirds GROUP BY 1, 2
)
SELECT period, carrier,
       CAST(sorted[(last * 9) // 10 + 1]
            + (sorted[(last * 9 + 9) // 10 + 1] - sorted[(last * 9) // 10 + 1])
              * (CAST((last * 9) % 10 AS DECIMAL(2, 0)) * 0.1) AS DECIMAL(38, 7))
FROM grouped
ORDER BY 1, 2 NULLS LAST
