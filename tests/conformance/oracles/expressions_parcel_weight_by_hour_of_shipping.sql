-- The hour of an instant, in the catalog's time zone (UTC).
SELECT CAST(date_trunc('year', o.ordered_on) AS DATE) AS period,
       CAST(extract(hour FROM p.shipped_at) AS INTEGER) AS ship_hour,
       sum(p.weight_kg) FILTER (WHERE p.carrier IS NOT NULL) AS parcel_weight
FROM parcels AS p LEFT JOIN orders AS o ON o.order_id = p.order_id
WHERE o.ordered_on >= DATE '2024-01-01' AND o.ordered_on < DATE '2025-01-01'
  AND o.order_status IS DISTINCT FROM 'cancelled'
GROUP BY 1, 2
ORDER BY 1, 2 NULLS LAST
