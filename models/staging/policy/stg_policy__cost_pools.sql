with

source as (
    select * from {{ source('policy', 'cost_pools') }}
),

final as (
    select
        period,
        gpu_class,
        cast(total_cost as decimal(18, 2)) as total_cost,
        cast(fixed_share as decimal(18, 6)) as fixed_share,
        currency
    from source
)

select * from final
