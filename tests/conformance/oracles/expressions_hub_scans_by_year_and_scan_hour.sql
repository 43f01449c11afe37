SELECT CAST(date_trunc('year', p.shipped_at) AS DATE) AS period,
       CAST(extract(hour FROM s.scanned_at) AS INTEGER) AS scan_hour,
       count(*) FILTER (WHERE starts_with(s.hub, 'north') OR s.hub IN ('south')) AS hub_scans
FROM scans AS s LEFT JOIN parcels AS p ON p.order_id = s.order_id AND p.line_no = s.line_no
WHERE p.shipped_at >= TIMESTAMPTZ '2025-01-01 00:00:00+00'
  AND p.shipped_at < TIMESTAMPTZ '2026-01-01 00:00:00+00'
  AND s.scanned_at >= TIMESTAMPTZ '2023-01-01 06:00:00+00' AND p.carrier IS NOT NULL
GROUP BY 1, 2
ORDER BY 1, 2
