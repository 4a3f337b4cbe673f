{#- Allocation segments priced per charge basis: each segment's allocated GPU-hours on the
    allocated_gpu_hour basis, and its borrowed GPU-hours (where it borrowed any) on the
    borrowed_gpu_hour basis, at the rate of its class valid when the segment started
    (segments are cut at rate card boundaries, so one rate covers each). A segment with no
    rate for a basis keeps its row, unpriced, so the close's rate_card_coverage check sees
    it. The one place the "rate valid at segment start" join lives. Built by period
    (gpuledger.core.period_scope). -#}
{{ config(**gpuledger.by_period_config()) }}
with

segments as (
    select * from {{ ref('int_allocation_segments') }}
    where {{ gpuledger.live_period('period') }}
),

rate_card as (
    select * from {{ ref('stg_policy__rate_card') }}
),

bases as (
    select
        segment_id,
        period,
        tenant_id,
        gpu_class,
        confidence,
        segment_start_at,
        'allocated_gpu_hour' as charge_basis,
        gpu_hours as priced_gpu_hours
    from segments
    union all
    select
        segment_id,
        period,
        tenant_id,
        gpu_class,
        confidence,
        segment_start_at,
        'borrowed_gpu_hour' as charge_basis,
        borrowed_gpu_hours as priced_gpu_hours
    from segments
    where borrowed_gpu_hours > 0
),

final as (
    select
        bases.segment_id,
        bases.charge_basis,
        bases.period,
        bases.tenant_id,
        bases.gpu_class,
        bases.confidence,
        bases.segment_start_at,
        bases.priced_gpu_hours,
        rate_card.rate_card_version,
        rate_card.unit_price,
        rate_card.currency
    from bases
    left join rate_card
        on
            bases.gpu_class = rate_card.gpu_class
            and bases.charge_basis = rate_card.charge_basis
            and bases.segment_start_at >= rate_card.valid_from_at
            and bases.segment_start_at < {{ gpuledger.open_end('rate_card.valid_to_at') }}
)

select * from final
