{#- A personal-data column (a user or job name) as the `personal_data` setting `mode` wants
    it in a mart: `keep` as is, `drop` null, `hash` the SHA-256 of the home's secret `salt`,
    '|' and the value (stable within a home, not reversible by hashing a list of names
    without the salt; null stays null). -#}
{% macro personal_data(column, mode, salt) -%}
    case {{ mode }}
        when 'keep' then {{ column }}
        when 'hash' then {{ gpuledger.sha256_hex(salt ~ " || '|' || " ~ column) }}
    end
{%- endmacro %}
