with

source as (
    select * from {{ source('policy', 'failure_reasons') }}
),

final as (
    select
        source_system,
        match_on,
        match_value,
        failure_class
    from source
)

select * from final
