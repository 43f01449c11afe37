-- Kilograms shipped with a carrier (term where), of orders not cancelled (a required filter
-- through a relationship, NULL status kept), by the order's quarter (a time column through a
-- relationship) and the carrier or 'none' (coalesce): the 'none' group has rows and no value.
SELECT CAST(date_trunc('quarter', o.ordered_on) AS DATE) AS period,
       coalesce(p.carrier, 'none') AS carrier_or_none,
       sum(p.weight_kg) FILTER (WHERE p.carrier IS NOT NULL) AS parcel_weight
FROM parcels AS p LEFT JOIN orders AS o ON o.order_id = p.order_id
WHERE o.ordered_on >= DATE '2024-01-01' AND o.ordered_on < DATE '2025-01-01'
  AND o.order_status IS DISTINCT FROM 'cancelled'
GROUP BY 1, 2
ORDER BY 1, 2 NULLS LAST
