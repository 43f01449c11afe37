-- 2026-01-26 has one unpaid order: revenue 7.00, no paying customer, so the ratio is NULL.
SELECT DATE '2026-01-26', CAST(NULL AS DECIMAL(18, 6))
