-- Ours (tests/workloads/jaffle_sl/README.md): the orders by their day, for a non_additive_dimension.
select order_id, customer_id, location_id, cast(ordered_at as date) as ordered_on, order_total
from {{ ref('orders') }}
