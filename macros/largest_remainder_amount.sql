{#- Split `total` (an amount to `decimals` places: cents by default, 6 for a quantity) over
    the rows of a partition in proportion to `raw`, so that the rounded amounts add up to
    `total` exactly: every row gets its raw amount rounded down to the last place, and the
    units left over go one each to the rows with the largest remainders (ties broken by
    `tiebreak`). Precondition: sum(raw) = total per partition. -#}
{% macro largest_remainder_amount(raw, total, partition_by, tiebreak, decimals=2) -%}
    {%- set scale = 10 ** decimals -%}
    cast((
        floor(cast({{ raw }} as double) * {{ scale }})
        + case
            when row_number() over (
                partition by {{ partition_by }}
                order by
                    cast({{ raw }} as double) * {{ scale }} - floor(cast({{ raw }} as double) * {{ scale }}) desc,
                    {{ tiebreak }}
            )
            <= round(cast({{ total }} as double) * {{ scale }})
            - sum(floor(cast({{ raw }} as double) * {{ scale }})) over (partition by {{ partition_by }})
                then 1
            else 0
        end
    ) / {{ scale }} as decimal(18, {{ decimals }}))
{%- endmacro %}
