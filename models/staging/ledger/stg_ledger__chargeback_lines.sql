with

source as (
    select * from {{ source('ledger', 'chargeback_lines') }}
),

final as (
    select
        {{ gpuledger.charge_line_columns() | join(',\n        ') }}
    from source
)

select * from final
