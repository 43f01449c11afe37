-- The date of an instant beside the day of its order.
SELECT CAST(o.ordered_on AS DATE) AS period, CAST(p.shipped_at AS DATE) AS ship_day,
       sum(p.weight_kg) FILTER (WHERE p.carrier IS NOT NULL) AS parcel_weight
FROM parcels AS p LEFT JOIN orders AS o ON o.order_id = p.order_id
WHERE o.ordered_on >= DATE '2024-03-04' AND o.ordered_on < DATE '2024-03-11'
  AND o.order_status IS DISTINCT FROM 'cancelled'
GROUP BY 1, 2
ORDER BY 1, 2 NULLS LAST
