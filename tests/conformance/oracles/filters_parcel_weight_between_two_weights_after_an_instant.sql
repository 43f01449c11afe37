-- between includes both bounds; an instant compared in the catalog's time zone (UTC); a day
-- and an hour computed from the instant, compared as a date and an integer.
SELECT CAST(date_trunc('month', o.ordered_on) AS DATE) AS period,
       sum(p.weight_kg) FILTER (WHERE p.carrier IS NOT NULL) AS parcel_weight
FROM parcels AS p LEFT JOIN orders AS o ON o.order_id = p.order_id
WHERE o.ordered_on >= DATE '2024-01-01' AND o.ordered_on < DATE '2024-07-01'
  AND o.order_status IS DISTINCT FROM 'cancelled'
  AND p.weight_kg BETWEEN 1.25 AND 3
  AND p.shipped_at >= TIMESTAMPTZ '2024-02-10 06:30:00+00'
  AND CAST(timezone('UTC', p.shipped_at) AS DATE) <= DATE '2024-05-20'
  AND extract(hour FROM timezone('UTC', p.shipped_at)) > 4
GROUP BY 1
ORDER BY 1
