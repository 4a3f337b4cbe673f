{#- One row per observed version of a Kubernetes object's GPU resource (`relation`: the raw
    table's import CTE; `uid`: the object's UID column): the same version (resourceVersion,
    or the observation time where the API gave none) seen twice - a list and a watch event,
    or a replay after a restart - is one observation, kept at its first sighting
    (gpuledger.latest_landed in first-sighting order). `version_key` and `observation_id`
    (cluster:uid:resource:version, `:deleted` for the deletion) name it. -#}
{% macro kubernetes_object_versions(relation, uid) -%}
    {%- set versions -%}
        (select *, coalesce(resource_version, cast(observed_at as {{ dbt.type_string() }})) as version_key
        from {{ relation }})
    {%- endset -%}
    select
        *,
        cluster || ':' || {{ uid }} || ':' || resource_name || ':' || version_key
        || case when is_deleted then ':deleted' else '' end as observation_id
    from (
        {{ gpuledger.latest_landed(
            versions,
            key=['cluster', uid, 'resource_name', 'version_key', 'is_deleted'],
            order_by='observed_at, extracted_at, batch_id, source_line'
        ) }}
    ) as first_sightings
{%- endmacro %}
