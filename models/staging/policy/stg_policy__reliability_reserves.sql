{#- The reliability reserve per GPU class: GPUs the policy holds back for failure, maintenance
    and recovery, from the optional settings keys `reliability_reserve_gpus.<gpu_class>`
    (for example `reliability_reserve_gpus.h100,2`). A class without a key holds none back. -#}
with

settings as (
    select * from {{ source('policy', 'settings') }}
),

final as (
    select
        substr(key, length('reliability_reserve_gpus.') + 1) as gpu_class,
        cast(value as decimal(18, 6)) as reliability_reserve_gpus
    from settings
    where key like 'reliability_reserve_gpus.%'
)

select * from final
