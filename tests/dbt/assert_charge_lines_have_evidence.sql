{#- Every charge line of fact_chargeback is explained by at least one piece of evidence
    (fact_charge_line_evidence), but for two kinds of line: one with nothing to explain
    (quantity and amount 0), and a published line of a closed period that the recomputation
    no longer produces at all (a charge line whose grain vanished with late evidence or a
    policy change; a published Correction whose corrected line is neither recomputed nor
    published any more; `gpuledger explain` says so). Every component of every charging model
    has its pieces: segments, reservation parts, the pool, endpoint segments, driver or
    overhead rows, credit rows, or the lines a Correction is the difference of. Returns the
    lines without any. -#}
with

lines as (
    select * from {{ ref('fact_chargeback') }}
),

evidence as (
    select * from {{ ref('fact_charge_line_evidence') }}
),

charges as (
    select * from {{ ref('int_charge_lines') }}
),

final as (
    select
        lines.charge_line_id,
        lines.period,
        lines.tenant_id,
        lines.charge_component,
        lines.quantity,
        lines.amount,
        lines.status
    from lines
    where
        lines.charge_line_id not in (select evidence.charge_line_id from evidence)
        and not (lines.quantity = 0 and lines.amount = 0)
        and not (
            lines.status = 'closed'
            and (
                lines.charge_class = 'Correction'
                or lines.charge_line_id not in (select charges.charge_line_id from charges)
            )
        )
)

select * from final
