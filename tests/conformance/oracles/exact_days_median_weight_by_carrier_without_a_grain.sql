-- The median parcel weight over exactly 2024-01-10 to 2024-02-19, by carrier: the mean of
-- the two middle values when there are two, from each group's sorted list.
WITH grouped AS (
    SELECT carrier, list_sort(list(weight_kg)) AS sorted
    FROM parcels
    WHERE shipped_at >= TIMESTAMPTZ '2024-01-10 00:00:00+00'
      AND shipped_at < TIMESTAMPTZ '2024-02-20 00:00:00+00'
    GROUP BY 1
)
SELECT carrier,
       CAST((sorted[(len(sorted) - 1) // 2 + 1] + sorted[len(sorted) // 2 + 1]) / 2
            AS DECIMAL(38, 4))
FROM grouped
ORDER BY 1 NULLS LAST
