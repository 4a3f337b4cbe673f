{#- Allocations take the GPU class of their node (int_nodes), which assumes every GPU of a
    node is the same model: returns each node with more than one GPU model. Severity warn: a
    mixed node is an inventory condition to fix at the source, not a reason to stop the
    build. -#}
{{ config(severity='warn') }}

with

nodes as (
    select * from {{ ref('int_nodes') }}
),

final as (
    select
        node_name,
        gpu_model_count,
        gpu_count
    from nodes
    where gpu_model_count > 1
)

select * from final
