-- Buckets of the weight (below 2, from 2 below 5.5, from 5.5 up), filtered on a dimension
-- reached through a relationship.
SELECT CAST(date_trunc('month', o.ordered_on) AS DATE) AS period,
       CASE WHEN p.weight_kg < 2 THEN 'light' WHEN p.weight_kg < 5.5 THEN 'medium'
            WHEN p.weight_kg >= 5.5 THEN 'heavy' END AS weight_band,
       sum(p.weight_kg) FILTER (WHERE p.carrier IS NOT NULL) AS parcel_weight
FROM parcels AS p JOIN orders AS o ON o.order_id = p.order_id
WHERE o.ordered_on >= DATE '2024-01-01' AND o.ordered_on < DATE '2024-04-01'
  AND o.order_status IS DISTINCT FROM 'cancelled' AND o.sales_channel = 'web'
GROUP BY 1, 2
ORDER BY 1, 2 NULLS LAST
