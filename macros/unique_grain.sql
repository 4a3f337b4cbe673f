{#- A generic data test: no two rows of the model share the values of `columns` (a null
    equals a null, as in a group by). Returns each repeated grain with its row count. Where a
    surrogate key would hash the grain only for its unique test, this checks the grain
    itself (a group by on the columns, no hash per row). -#}
{% test unique_grain(model, columns) %}
select
    {{ columns | join(', ') }},
    count(*) as row_count
from {{ model }}
group by {{ columns | join(', ') }}
having count(*) > 1
{% endtest %}
