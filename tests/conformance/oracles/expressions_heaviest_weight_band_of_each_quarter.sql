-- top per period by a dimension that is an expression (buckets binding its edges and labels).
WITH grouped AS (
    SELECT CAST(date_trunc('quarter', o.ordered_on) AS DATE) AS period,
           CASE WHEN p.weight_kg < 2 THEN 'light' WHEN p.weight_kg < 5.5 THEN 'medium'
                WHEN p.weight_kg >= 5.5 THEN 'heavy' END AS weight_band,
           sum(p.weight_kg) FILTER (WHERE p.carrier IS NOT NULL) AS parcel_weight
    FROM parcels AS p LEFT JOIN orders AS o ON o.order_id = p.order_id
    WHERE o.ordered_on >= DATE '2024-01-01' AND o.ordered_on < DATE '2025-01-01'
      AND o.order_status IS DISTINCT FROM 'cancelled'
    GROUP BY 1, 2
)
SELECT period, weight_band, parcel_weight
FROM grouped
QUALIFY row_number() OVER (PARTITION BY period ORDER BY parcel_weight DESC NULLS LAST,
                           weight_band NULLS LAST) = 1
ORDER BY 1
