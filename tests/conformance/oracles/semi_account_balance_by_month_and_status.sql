-- Portable SQL (run on DuckDB and on PostgreSQL). Each account's rows on the last day of the
-- month it has one (both rows where it changed twice that day; the NULL account one account),
-- their balances added up by month and the status of those rows.
WITH last_day AS (
    SELECT CAST(date_trunc('month', as_of) AS DATE) AS period, account_id, max(as_of) AS day
    FROM balances
    WHERE as_of >= DATE '2025-10-01' AND as_of < DATE '2026-02-01'
    GROUP BY 1, 2
)
SELECT l.period, b.status, sum(b.balance)
FROM balances AS b JOIN last_day AS l
    ON b.account_id IS NOT DISTINCT FROM l.account_id AND b.as_of = l.day
GROUP BY l.period, b.status
ORDER BY 1, 2 NULLS LAST
