-- The ISO day of the week (Saturday 6, Sunday 7), filtered on with values bound as integers.
SELECT CAST(date_trunc('year', o.ordered_on) AS DATE) AS period,
       CAST(extract(isodow FROM p.shipped_at) AS INTEGER) AS ship_weekday,
       sum(p.weight_kg) FILTER (WHERE p.carrier IS NOT NULL) AS parcel_weight
FROM parcels AS p LEFT JOIN orders AS o ON o.order_id = p.order_id
WHERE o.ordered_on >= DATE '2025-01-01' AND o.ordered_on < DATE '2026-01-01'
  AND o.order_status IS DISTINCT FROM 'cancelled'
  AND extract(isodow FROM p.shipped_at) IN (6, 7)
GROUP BY 1, 2
ORDER BY 1, 2 NULLS LAST
