{#- One row per period, tenant, charge component, GPU class (and rate card version and unit
    price, when a rate changed within the period). A closed period's rows come from the
    append-only published ledger, unchanged; an open period's rows are provisional. -#}
with

provisional as (
    select * from {{ ref('int_charge_lines') }}
),

closes as (
    select * from {{ ref('stg_ledger__closes') }}
),

published as (
    select * from {{ ref('stg_ledger__chargeback_lines') }}
),

latest_close as (
    select
        period,
        close_id
    from (
        select
            period,
            close_id,
            row_number() over (partition by period order by close_version desc) as close_rank
        from closes
    ) as ranked
    where close_rank = 1
),

open_lines as (
    select
        provisional.*,
        'provisional' as status,
        cast(null as {{ dbt.type_string() }}) as close_id
    from provisional
    where provisional.period not in (select latest_close.period from latest_close)
),

closed_lines as (
    select published.*
    from published
    inner join latest_close
        on published.close_id = latest_close.close_id
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
        status,
        close_id
    from open_lines
    union all
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
        status,
        close_id
    from closed_lines
)

select * from final
