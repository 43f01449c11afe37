-- A range on a decimal column excludes NULL weights; the bound is exact (2.5, not a float).
SELECT CAST(date_trunc('quarter', o.ordered_on) AS DATE) AS period, p.carrier,
       sum(p.weight_kg) FILTER (WHERE p.carrier IS NOT NULL) AS parcel_weight
FROM parcels AS p LEFT JOIN orders AS o ON o.order_id = p.order_id
WHERE o.ordered_on >= DATE '2024-01-01' AND o.ordered_on < DATE '2025-01-01'
  AND o.order_status IS DISTINCT FROM 'cancelled'
  AND p.weight_kg < 2.5
GROUP BY 1, 2
ORDER BY 1, 2 NULLS LAST
