-- expression_percentile_of_a_quotient_without_a_grain (duckdb)
-- question: {"grain": null, "metrics": ["median_price"], "range": {"end": "2024-03-10", "start": "2024-01-15"}}
-- params:
--   1: int 9
--   2: int 10
--   3: int 9
--   4: int 10
--   5: int 10
--   6: int 9
--   7: int 10
--   8: int 9
--   9: int 10
--   10: Decimal 0.1
--   11: date 2024-01-15
--   12: date 2024-03-10
SELECT
  CAST(MIN(
    CASE
      WHEN "w"."i0.0.rank" = (
        (
          (
            "w"."i0.0.count" - 1
          ) * ?
        ) // ? + 1
      )
      THEN "w"."i0.0"
    END
  ) + CAST((
    MIN(
      CASE
        WHEN "w"."i0.0.rank" = (
          (
            (
              "w"."i0.0.count" - 1
            ) * ? + ? - 1
          ) // ? + 1
        )
        THEN "w"."i0.0"
      END
    ) - MIN(
      CASE
        WHEN "w"."i0.0.rank" = (
          (
            (
              "w"."i0.0.count" - 1
            ) * ?
          ) // ? + 1
        )
        THEN "w"."i0.0"
      END
    )
  ) AS DECIMAL(38, 6)) * (
    CAST(MAX(MOD((
      "w"."i0.0.count" - 1
    ) * ?, ?)) AS DECIMAL(1, 0)) * ?
  ) AS DECIMAL(38, 7)) AS "median_price"
FROM (
  SELECT
    CAST(CAST(CAST(CAST("t0"."l_extendedprice" AS DECIMAL(38, 2)) * 100000000 AS INT128) // NULLIF(CAST(CAST("t0"."l_quantity" AS DECIMAL(38, 2)) * 100 AS INT128), 0) AS DECIMAL(38, 0)) * 0.000001 AS DECIMAL(21, 6)) AS "i0.0",
    ROW_NUMBER() OVER (
      ORDER BY CAST(CAST(CAST(CAST("t0"."l_extendedprice" AS DECIMAL(38, 2)) * 100000000 AS INT128) // NULLIF(CAST(CAST("t0"."l_quantity" AS DECIMAL(38, 2)) * 100 AS INT128), 0) AS DECIMAL(38, 0)) * 0.000001 AS DECIMAL(21, 6))
    ) AS "i0.0.rank",
    COUNT(
      CAST(CAST(CAST(CAST("t0"."l_extendedprice" AS DECIMAL(38, 2)) * 100000000 AS INT128) // NULLIF(CAST(CAST("t0"."l_quantity" AS DECIMAL(38, 2)) * 100 AS INT128), 0) AS DECIMAL(38, 0)) * 0.000001 AS DECIMAL(21, 6))
    ) OVER () AS "i0.0.count"
  FROM "lineitem" AS "t0"
  WHERE
    "t0"."l_shipdate" >= ? AND "t0"."l_shipdate" < ?
) AS "w"
HAVING
  COUNT(*) > 0
