-- The median of a decimal of scale 3: the mean of the two middle values when there are two,
-- at scale 4, from each group's sorted list (an independent way to the same number).
WITH grouped AS (
    SELECT CAST(date_trunc('month', shipped_at) AS DATE) AS period, carrier,
           CASE WHEN weight_kg < 2 THEN 'light' WHEN weight_kg < 5.5 THEN 'medium'
                WHEN weight_kg >= 5.5 THEN 'heavy' END AS weight_band,
           list_sort(list(weight_kg)) AS sorted
    FROM parcels
    WHERE shipped_at >= TIMESTAMPTZ '2024-01-01 00:00:00+00'
      AND shipped_at < TIMESTAMPTZ '2024-03-01 00:00:00+00'
    GROUP BY 1, 2, 3
)
SELECT period, carrier, weight_band,
       CAST((sorted[(len(sorted) - 1) // 2 + 1] + sorted[len(sorted) // 2 + 1]) / 2
            AS DECIMAL(38, 4))
FROM grouped
ORDER BY 1, 2 NULLS LAST, 3 NULLS LAST
