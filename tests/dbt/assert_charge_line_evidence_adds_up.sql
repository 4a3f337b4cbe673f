{#- Per charge line, the evidence adds up exactly: its quantities to the line's quantity
    (decimal(18, 6)) and its amounts to the line's amount (decimal(18, 2)), for the line as
    recomputed now (int_charge_lines) and, for a provisional line, as fact_chargeback serves
    it. (A closed line may differ from its recomputation once late evidence landed:
    is_line_reproduced says so, and explain prints the difference.) Returns the lines whose
    evidence does not add up. -#}
with

evidence as (
    select * from {{ ref('fact_charge_line_evidence') }}
),

charges as (
    select * from {{ ref('int_charge_lines') }}
),

lines as (
    select * from {{ ref('fact_chargeback') }}
),

sums as (
    select
        charge_line_id,
        sum(quantity) as evidence_quantity,
        sum(amount) as evidence_amount,
        count(*) as evidence_count
    from evidence
    group by charge_line_id
),

final as (
    select
        sums.charge_line_id,
        sums.evidence_count,
        sums.evidence_quantity,
        sums.evidence_amount,
        charges.quantity as recomputed_quantity,
        charges.amount as recomputed_amount,
        lines.status,
        lines.quantity as line_quantity,
        lines.amount as line_amount
    from sums
    inner join lines
        on sums.charge_line_id = lines.charge_line_id
    left join charges
        on sums.charge_line_id = charges.charge_line_id
    where
        (
            charges.charge_line_id is not null
            and (sums.evidence_quantity != charges.quantity or sums.evidence_amount != charges.amount)
        )
        or (
            lines.status = 'provisional'
            and (sums.evidence_quantity != lines.quantity or sums.evidence_amount != lines.amount)
        )
)

select * from final
