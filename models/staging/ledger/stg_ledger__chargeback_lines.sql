with

source as (
    select * from {{ source('ledger', 'chargeback_lines') }}
),

final as (
    select
        {{ gpuledger.charge_line_columns() | join(',\n        ') }},
        corrects_period,
        corrects_close_id,
        status,
        close_id
    from source
)

select * from final
