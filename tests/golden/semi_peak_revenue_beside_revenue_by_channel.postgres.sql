-- semi_peak_revenue_beside_revenue_by_channel (postgres)
-- question: {"dimensions": ["channel"], "metrics": ["peak_revenue", "revenue"]}
-- params:
--   1: date 2024-01-01
--   2: date 2024-04-01
--   3: str "complete"
--   4: date 2024-01-01
--   5: date 2024-04-01
--   6: str "complete"
SELECT
  COALESCE("a"."period", "b"."period") AS "period",
  COALESCE("a"."channel", "b"."channel") AS "channel",
  "a"."peak_revenue" AS "peak_revenue",
  "b"."revenue" AS "revenue"
FROM (
  SELECT
    "w"."period" AS "period",
    "w"."channel" AS "channel",
    SUM("w"."value") AS "peak_revenue"
  FROM (
    SELECT
      CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE) AS "period",
      "t0"."channel" COLLATE "C" AS "channel",
      MAX("t0"."amount") AS "value"
    FROM "orders" AS "t0"
    WHERE
      "t0"."created_at" >= %s AND "t0"."created_at" < %s AND "t0"."status" = %s
    GROUP BY
      1,
      2,
      "t0"."customer_id"
  ) AS "w"
  GROUP BY
    "w"."period",
    "w"."channel"
) AS a
FULL OUTER JOIN (
  SELECT
    CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE) AS "period",
    "t0"."channel" COLLATE "C" AS "channel",
    SUM("t0"."amount") AS "revenue"
  FROM "orders" AS "t0"
  WHERE
    "t0"."created_at" >= %s AND "t0"."created_at" < %s AND "t0"."status" = %s
  GROUP BY
    CAST(DATE_TRUNC('month', "t0"."created_at") AS DATE),
    "t0"."channel"
) AS b
  ON "a"."period" = "b"."period" AND "a"."channel" IS NOT DISTINCT FROM "b"."channel"
ORDER BY
  1,
  2
