with

source as (

    select * from {{ source('ecom', 'raw_orders') }}
    -- if you generate a larger dataset, you can limit the timespan to the current time with the following line
    -- where ordered_at <= {{ var('truncate_timespan_to') }}

),

renamed as (

    select

        ----------  ids
        id as order_id,
        store_id as location_id,
        customer as customer_id,

        ---------- numerics
        (order_total / 100.0) as order_total,
        (tax_paid / 100.0) as tax_paid,

        ---------- timestamps
        {{dbt.date_trunc('day','ordered_at')}} as ordered_at

    from source

)

select * from renamed
