{{ config(materialized='ephemeral') }}

with

source as (
    select * from {{ source('secrets', 'personal_data_salt') }}
),

final as (
    select max(salt) as salt
    from source
)

select * from final
