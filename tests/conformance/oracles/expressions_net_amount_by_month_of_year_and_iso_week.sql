SELECT CAST(date_trunc('quarter', ordered_on) AS DATE) AS period,
       CAST(month(ordered_on) AS INTEGER), CAST(weekofyear(ordered_on) AS INTEGER),
       sum(amount * 0.9) FILTER (WHERE is_paid IS TRUE) AS net_amount
FROM orders
WHERE ordered_on >= DATE '2024-10-01' AND ordered_on < DATE '2025-04-01'
  AND NOT coalesce(order_status IN ('cancelled'), false)
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3
