with

source as (
    select * from {{ source('ledger', 'chargeback_lines') }}
),

final as (
    select
        charge_line_id,
        period,
        tenant_id,
        charge_component,
        gpu_class,
        quantity,
        unit,
        unit_price,
        amount,
        currency,
        rate_card_version,
        confidence,
        charge_class,
        description,
        corrects_period,
        corrects_close_id,
        status,
        close_id
    from source
)

select * from final
