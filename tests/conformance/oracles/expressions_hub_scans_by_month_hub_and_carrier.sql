-- Scans joined to their parcel on two columns, timed by the parcel's instant, kept from a
-- timestamp constant on, counted where the hub starts with 'north' or is 'south'.
SELECT CAST(date_trunc('month', p.shipped_at) AS DATE) AS period, s.hub, p.carrier,
       count(*) FILTER (WHERE starts_with(s.hub, 'north') OR s.hub IN ('south')) AS hub_scans
FROM scans AS s LEFT JOIN parcels AS p ON p.order_id = s.order_id AND p.line_no = s.line_no
WHERE p.shipped_at >= TIMESTAMPTZ '2024-01-01 00:00:00+00'
  AND p.shipped_at < TIMESTAMPTZ '2024-03-01 00:00:00+00'
  AND s.scanned_at >= TIMESTAMPTZ '2023-01-01 06:00:00+00' AND p.carrier IS NOT NULL
GROUP BY 1, 2, 3
ORDER BY 1, 2 NULLS LAST, 3 NULLS LAST
