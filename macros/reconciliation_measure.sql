{#- What one reconciliation check found, per period of int_periods, from `findings` (one row
    per finding: period, observed_value and finding, its text): observed_value, the sum of the
    findings' (0 when none); limit_value (a number, or none for a check without a limit); detail,
    the findings' texts in `order_by` order joined by `delimiter` (`when_none` when there are
    none; a null text is not listed, a null figure adds nothing); and finding_count. -#}
{% macro reconciliation_measure(findings, when_none, order_by, limit_value=0, delimiter=', ', distinct=false) -%}
    select
        periods.period,
        coalesce(sum(findings.observed_value), 0) as observed_value,
        cast({{ 'null' if limit_value is none else limit_value }} as double) as limit_value,
        coalesce(
            {% call gpuledger.string_agg(dbt.string_literal(delimiter), 'findings.' ~ order_by, distinct) -%}
                findings.finding
            {%- endcall %},
            {{ dbt.string_literal(when_none) }}
        ) as detail,
        count(findings.period) as finding_count
    from {{ ref('int_periods') }} as periods
    left join {{ findings }} as findings
        on periods.period = findings.period
    group by periods.period
{%- endmacro %}
