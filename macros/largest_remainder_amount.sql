{#- Split `total` (a cents amount) over the rows of a partition in proportion to `raw`, so
    that the rounded amounts add up to `total` exactly: every row gets its raw amount rounded
    down to the cent, and the cents left over go one each to the rows with the largest
    remainders (ties broken by `tiebreak`). Precondition: sum(raw) = total per partition. -#}
{% macro largest_remainder_amount(raw, total, partition_by, tiebreak) -%}
    cast((
        floor(cast({{ raw }} as double) * 100)
        + case
            when row_number() over (
                partition by {{ partition_by }}
                order by
                    cast({{ raw }} as double) * 100 - floor(cast({{ raw }} as double) * 100) desc,
                    {{ tiebreak }}
            )
            <= round(cast({{ total }} as double) * 100)
            - sum(floor(cast({{ raw }} as double) * 100)) over (partition by {{ partition_by }})
                then 1
            else 0
        end
    ) / 100 as decimal(18, 2))
{%- endmacro %}
