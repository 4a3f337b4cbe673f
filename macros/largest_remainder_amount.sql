{#- Split `total` (an amount to `decimals` places: cents by default, 6 for a quantity) over
    the rows of a partition in proportion to `raw`, so that the rounded amounts add up to
    `total` exactly: every row gets its raw amount rounded down to the last place, and the
    units left over go one each to the rows with the largest remainders (ties broken by
    `tiebreak`). Precondition: sum(raw) = total per partition.
    `raw` is a double whose last bits vary with the order the engine summed it in, so it is
    first rounded to a millionth of the last place: two rows that share a line equally tie on
    every build (and the tiebreak decides) instead of flipping a cent on float noise. -#}
{% macro largest_remainder_amount(raw, total, partition_by, tiebreak, decimals=2) -%}
    {%- set scale = 10 ** decimals -%}
    {%- set scaled = 'round(cast(' ~ raw ~ ' as double) * ' ~ scale ~ ', 6)' -%}
    cast((
        floor({{ scaled }})
        + case
            when row_number() over (
                partition by {{ partition_by }}
                order by {{ scaled }} - floor({{ scaled }}) desc, {{ tiebreak }}
            )
            <= round(cast({{ total }} as double) * {{ scale }})
            - sum(floor({{ scaled }})) over (partition by {{ partition_by }})
                then 1
            else 0
        end
    ) / {{ scale }} as decimal(18, {{ decimals }}))
{%- endmacro %}
