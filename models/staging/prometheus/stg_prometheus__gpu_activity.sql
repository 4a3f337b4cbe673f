{{ config(
    **gpuledger.by_day_incremental_config('sample_day')
) }}

{#- GPU activity from dcgm-exporter, one row per GPU (or MIG instance) per sample time.

    Units are converted here and only here: GR_ENGINE_ACTIVE is already a 0..1 ratio,
    GPU_UTIL is a percent (/ 100), FB_USED is MiB (x 1048576), POWER_USAGE is watts.
    active_ratio is GR_ENGINE_ACTIVE, or GPU_UTIL / 100 when the GPU reported no
    GR_ENGINE_ACTIVE at that time (whole GPUs only: on MIG instances GPU_UTIL is a repeated
    device-level value or 0).

    MIG: DCGM labels instance series with the parent GPU's UUID plus GPU_I_ID and repeats
    device-level series (power, energy, clocks) on every instance. Instance rows carry the
    instance's own activity and framebuffer and a null power; one parent row per MIG GPU
    and time (gpu_instance_id null, is_mig_parent) carries the device-level power once: the
    GPU-level series if the exporter sent one, else the lowest-numbered instance's copy.
    A parent row has no activity or framebuffer, so sums over rows never count one twice.

    Points name their series (its labels landed once per batch); a point landed twice
    (overlapping chunks or files) counts once: the latest extraction.

    Incremental by whole UTC days (sample_day): every row depends only on the points of its
    own GPU and time, so a day is rebuilt from that day's points of every batch, and a build
    rebuilds only the days its new batches touch (gpuledger.core.incremental). -#}
with

batches as (
    select * from {{ ref('stg_landing__batches') }}
),

series as (
    select * from {{ source('prometheus', 'prometheus_series') }}
),

points as (
    select * from {{ source('prometheus', 'prometheus_points') }}
    where {{ gpuledger.rebuild_window('sampled_at') }}
),

{# The batches with points in the days rebuilt: only their series are numbered and joined. A
    fleet month lands millions of series (2.35M for 4,096 GPUs), and numbering them all took
    4.4 s in every piece of its rebuild; a piece's points are in a few batches. A run that
    rebuilds in pieces names each piece's batches (from their Parquet statistics), so that
    DuckDB reads only their series files; else they are read apart from `points` (a second
    reference to it would make DuckDB hold every point of the piece). #}
rebuilt_batches as (
    {{ gpuledger.rebuild_batches(source('prometheus', 'prometheus_points'), 'sampled_at') }}
),

{# The landed batches (those with a manifest) in the order a later version of a point wins:
    the extraction (an unknown one first), then the batch id. #}
batch_order as (
    select
        batch_id,
        row_number() over (order by extracted_at asc nulls first, batch_id asc) as batch_rank
    from batches
),

{# The DCGM activity series of the rebuilt batches, with the labels staging reads, numbered
    by those labels (label_number: series with the same labels have the same number). #}
activity_series as (
    select
        series.batch_id,
        series.series_key,
        series.metric,
        series.gpu_uuid,
        series.gpu_instance_id,
        series.gpu_instance_profile,
        series.model_name,
        series.hostname,
        series.pod,
        series.namespace,
        series.container,
        batch_order.batch_rank,
        dense_rank() over (
            order by
                series.gpu_instance_profile,
                series.model_name,
                series.hostname,
                series.pod,
                series.namespace,
                series.container
        ) as label_number,
        dense_rank() over (order by series.gpu_uuid, series.gpu_instance_id) as device_number,
        case series.metric
            when 'DCGM_FI_PROF_GR_ENGINE_ACTIVE' then 1
            when 'DCGM_FI_DEV_GPU_UTIL' then 2
            when 'DCGM_FI_DEV_FB_USED' then 3
            when 'DCGM_FI_DEV_POWER_USAGE' then 4
        end as metric_number
    from series
    inner join batch_order on series.batch_id = batch_order.batch_id
    inner join rebuilt_batches on series.batch_id = rebuilt_batches.batch_id
    where
        series.exporter = 'dcgm'
        and series.metric in (
            'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
            'DCGM_FI_DEV_GPU_UTIL',
            'DCGM_FI_DEV_FB_USED',
            'DCGM_FI_DEV_POWER_USAGE'
        )
),

{# landed_order: one number in the order of (batch_rank, source_line), so the latest landed
    version of a point (latest extraction, then batch, then line) is its greatest. #}
samples as (
    select
        activity_series.device_number,
        activity_series.metric_number,
        activity_series.label_number,
        points.sampled_at,
        points.value,
        activity_series.batch_rank * 4294967296 + points.source_line as landed_order
    from points
    inner join activity_series
        on
            points.batch_id = activity_series.batch_id
            and points.series_key = activity_series.series_key
),

{# One pass: per GPU (or instance) and time, each metric's latest landed point and the labels
    of the series that holds it. #}
latest_points as (
    select
        device_number,
        sampled_at,
        {{ gpuledger.latest_by('value', 'landed_order') }} filter (
            where metric_number = 1
        ) as gr_engine_active,
        {{ gpuledger.latest_by('label_number', 'landed_order') }} filter (
            where metric_number = 1
        ) as gr_engine_active_label_number,
        {{ gpuledger.latest_by('value', 'landed_order') }} filter (
            where metric_number = 2
        ) as gpu_util_percent,
        {{ gpuledger.latest_by('label_number', 'landed_order') }} filter (
            where metric_number = 2
        ) as gpu_util_percent_label_number,
        {{ gpuledger.latest_by('value', 'landed_order') }} filter (
            where metric_number = 3
        ) as fb_used_mib,
        {{ gpuledger.latest_by('label_number', 'landed_order') }} filter (
            where metric_number = 3
        ) as fb_used_mib_label_number,
        {{ gpuledger.latest_by('value', 'landed_order') }} filter (
            where metric_number = 4
        ) as power_usage_watts,
        {{ gpuledger.latest_by('label_number', 'landed_order') }} filter (
            where metric_number = 4
        ) as power_usage_watts_label_number
    from samples
    group by device_number, sampled_at
),

{# The GPU (and MIG instance) each device number stands for. #}
devices as (
    select distinct
        device_number,
        gpu_uuid,
        gpu_instance_id
    from activity_series
),

{# Each label set once. #}
labels as (
    select distinct
        label_number,
        gpu_instance_profile,
        model_name,
        hostname,
        pod,
        namespace,
        container
    from activity_series
),

{# The labels of a time are the greatest of those its metrics' latest points carry: at almost
    every time all of them carry the same label set (its number the greatest and the least of
    theirs, nulls skipped), read with one join; the other times read each metric's. #}
labelled_points as (
    select
        *,
        greatest(
            gr_engine_active_label_number,
            gpu_util_percent_label_number,
            fb_used_mib_label_number,
            power_usage_watts_label_number
        ) as greatest_labels,
        least(
            gr_engine_active_label_number,
            gpu_util_percent_label_number,
            fb_used_mib_label_number,
            power_usage_watts_label_number
        ) as least_labels
    from latest_points
),

{%- set label_columns = [
    ('gpu_instance_profile', 'mig_profile'),
    ('model_name', 'gpu_model'),
    ('hostname', 'hostname'),
    ('pod', 'pod_name'),
    ('namespace', 'namespace_name'),
    ('container', 'container_name'),
] %}
{%- set metrics = ['gr_engine_active', 'gpu_util_percent', 'fb_used_mib', 'power_usage_watts'] %}

{# The times whose metrics carry one label set, then the others. #}
per_series_time as (
    {%- for one_set in [true, false] %}
    select
        devices.gpu_uuid,
        devices.gpu_instance_id,
        labelled_points.sampled_at,
        {%- if one_set %}
        {%- for label, name in label_columns %}
        labels.{{ label }}{{ ' as ' ~ name if name != label }},
        {%- endfor %}
        {%- else %}
        {%- for label, name in label_columns %}
        greatest(
            gr_engine_active_labels.{{ label }},
            gpu_util_percent_labels.{{ label }},
            fb_used_mib_labels.{{ label }},
            power_usage_watts_labels.{{ label }}
        ) as {{ name }},
        {%- endfor %}
        {%- endif %}
        labelled_points.gr_engine_active,
        labelled_points.gpu_util_percent,
        labelled_points.fb_used_mib,
        labelled_points.power_usage_watts
    from labelled_points
    inner join devices on labelled_points.device_number = devices.device_number
    {%- if one_set %}
    inner join labels on labelled_points.greatest_labels = labels.label_number
    where labelled_points.greatest_labels = labelled_points.least_labels

    union all
    {% else %}
    {%- for metric in metrics %}
    left join labels as {{ metric }}_labels
        on labelled_points.{{ metric }}_label_number = {{ metric }}_labels.label_number
    {%- endfor %}
    where labelled_points.greatest_labels != labelled_points.least_labels
    {%- endif %}
    {%- endfor %}
),

mig_instances as (
    select * from per_series_time
    where gpu_instance_id is not null
),

{# The GPUs and times that have MIG instance rows: only their GPU-level rows are merged with
    an instance's device-level copy; every other GPU row is its GPU's whole row already. #}
mig_times as (
    select distinct
        gpu_uuid,
        sampled_at
    from mig_instances
),

{# A GPU's own (GPU-level) row per time, in the columns the parent merge reads; at a time
    with MIG instances it is the MIG parent's row. #}
gpu_series_time as (
    select
        per_series_time.gpu_uuid,
        per_series_time.sampled_at,
        per_series_time.gpu_model,
        per_series_time.hostname,
        per_series_time.pod_name,
        per_series_time.namespace_name,
        per_series_time.container_name,
        per_series_time.gr_engine_active,
        per_series_time.gpu_util_percent,
        per_series_time.fb_used_mib,
        per_series_time.power_usage_watts,
        mig_times.gpu_uuid is not null as is_mig_parent
    from per_series_time
    left join mig_times
        on
            per_series_time.gpu_uuid = mig_times.gpu_uuid
            and per_series_time.sampled_at = mig_times.sampled_at
    where per_series_time.gpu_instance_id is null
),

mig_device_copies as (
    select
        *,
        row_number() over (
            partition by gpu_uuid, sampled_at
            order by
                case when power_usage_watts is null then 1 else 0 end,
                length(gpu_instance_id),
                gpu_instance_id
        ) as instance_rank
    from mig_instances
),

gpu_level_parts as (
    select
        *,
        false as is_from_mig_instance
    from gpu_series_time
    where is_mig_parent

    union all

    select
        gpu_uuid,
        sampled_at,
        gpu_model,
        hostname,
        null as pod_name,
        null as namespace_name,
        null as container_name,
        null as gr_engine_active,
        null as gpu_util_percent,
        null as fb_used_mib,
        power_usage_watts,
        true as is_mig_parent,
        true as is_from_mig_instance
    from mig_device_copies
    where instance_rank = 1
),

mig_gpu_level as (
    select
        gpu_uuid,
        sampled_at,
        max(gpu_model) as gpu_model,
        max(hostname) as hostname,
        max(pod_name) as pod_name,
        max(namespace_name) as namespace_name,
        max(container_name) as container_name,
        max(gr_engine_active) as gr_engine_active,
        max(gpu_util_percent) as gpu_util_percent,
        max(fb_used_mib) as fb_used_mib,
        coalesce(
            max(case when not is_from_mig_instance then power_usage_watts end),
            max(case when is_from_mig_instance then power_usage_watts end)
        ) as power_usage_watts,
        true as is_mig_parent
    from gpu_level_parts
    group by gpu_uuid, sampled_at
),

gpu_level as (
    select * from gpu_series_time
    where not is_mig_parent

    union all

    select * from mig_gpu_level
),

gpu_rows as (
    select
        gpu_uuid,
        cast(null as {{ dbt.type_string() }}) as gpu_instance_id,
        cast(null as {{ dbt.type_string() }}) as mig_profile,
        gpu_model,
        hostname,
        case when is_mig_parent then null else pod_name end as pod_name,
        case when is_mig_parent then null else namespace_name end as namespace_name,
        case when is_mig_parent then null else container_name end as container_name,
        sampled_at,
        case
            when is_mig_parent then null
            when gr_engine_active is not null then gr_engine_active
            else gpu_util_percent / 100.0
        end as active_ratio,
        case
            when is_mig_parent then null
            when gr_engine_active is not null then 'gr_engine_active'
            when gpu_util_percent is not null then 'gpu_util'
        end as active_ratio_source,
        case
            when not is_mig_parent then cast(round(fb_used_mib * 1048576) as bigint)
        end as framebuffer_used_bytes,
        power_usage_watts as power_watts,
        false as is_mig_instance,
        is_mig_parent
    from gpu_level
),

instance_rows as (
    select
        gpu_uuid,
        gpu_instance_id,
        mig_profile,
        gpu_model,
        hostname,
        pod_name,
        namespace_name,
        container_name,
        sampled_at,
        gr_engine_active as active_ratio,
        case when gr_engine_active is not null then 'gr_engine_active' end as active_ratio_source,
        cast(round(fb_used_mib * 1048576) as bigint) as framebuffer_used_bytes,
        cast(null as double) as power_watts,
        true as is_mig_instance,
        false as is_mig_parent
    from mig_instances
),

all_rows as (
    select * from gpu_rows
    union all
    select * from instance_rows
),

final as (
    select
        *,
        cast(sampled_at as date) as sample_day
    from all_rows
)

select * from final
