"""What each measure a page shows means, in the words README uses ("Metrics", "The showback
site"): one label and one short definition per measure, idle class and default payer.

The definitions name no tenant, so a tenant's page can carry all of them."""

from __future__ import annotations

# the four ledgers of fact_showback
LEDGER = {
    "reserved_gpu_hours": (
        "reserved",
        "GPU-hours the tenant's reservations entitle it to, used or not",
    ),
    "allocated_gpu_hours": (
        "allocated",
        "GPU-equivalent hours allocated to the tenant's workloads = guaranteed + borrowed",
    ),
    "guaranteed_gpu_hours": (
        "guaranteed",
        "the allocated GPU-hours within the tenant's reservation at each instant",
    ),
    "borrowed_gpu_hours": (
        "borrowed",
        "the allocated GPU-hours above the tenant's reservation at each instant",
    ),
    "active_equivalent_gpu_hours": (
        "active-equivalent",
        "capacity fraction x active ratio over the allocated time telemetry covered",
    ),
    "idle_allocated_gpu_hours": (
        "idle-allocated",
        "allocated GPU-hours telemetry covered below idle_active_threshold",
    ),
    "telemetry_unknown_gpu_hours": (
        "no telemetry",
        "allocated GPU-hours no telemetry covered (unknown, not idle)",
    ),
    "reservation_occupancy_ratio": (
        "occupancy",
        "allocated / reserved GPU-hours",
    ),
}

SHARING = {
    "whole_gpu_hours": ("whole GPU", "allocated GPU-hours on exclusive whole GPUs"),
    "mig_gpu_hours": ("MIG", "MIG instances, in GPU-equivalents of their profile's weight"),
    "vgpu_gpu_hours": ("vGPU", "vGPU profiles, in GPU-equivalents of their profile's weight"),
    "timeslice_gpu_hours": ("time-slice", "time-slice replicas at 1 / replicas (modeled)"),
    "process_gpu_hours": (
        "process-mapped",
        "time-sliced GPUs measured by the processes NVML saw on them (medium confidence)",
    ),
}

CONFIDENCE = {
    "high_confidence_gpu_hours": ("high confidence", "whole GPUs, MIG and vGPU host evidence"),
    "medium_confidence_gpu_hours": ("medium confidence", "process-mapped shares"),
    "modeled_gpu_hours": ("modeled", "time-slice replicas"),
    "unattributed_gpu_hours": (
        "unattributed",
        "GPU-hours no ownership interval covers: held in suspense, never charged to a guessed "
        "tenant",
    ),
}

WORK = {
    "successful_jobs": ("successful jobs", "GPU workloads that ended in the period with success"),
    "unsuccessful_jobs": ("failed jobs", "GPU workloads that ended otherwise"),
    "requests": ("requests", "successful gateway requests"),
    "input_tokens": ("input tokens", "input tokens of the successful gateway requests"),
    "output_tokens": ("output tokens", "output tokens of the successful gateway requests"),
    "cost_per_successful_unit": (
        "per successful job",
        "total charge / successful jobs (cost per successful unit)",
    ),
    "cost_per_successful_request": ("per request", "total charge / successful gateway requests"),
    "cost_per_million_tokens": (
        "per million tokens",
        "total charge per million input and output tokens of successful gateway requests",
    ),
}

CHARGES = {
    "total_charge": ("total charge", "the sum of the charge lines, to the cent"),
    "unpriced_lines": (
        "unpriced lines",
        "lines of a rate-card component no rate covers: the total leaves them out",
    ),
}

IDLE_CLASSES = {
    "allocated_active": "allocated, telemetry at or above idle_active_threshold",
    "allocated_inactive": "allocated within the reservation, telemetry below the threshold",
    "borrowed_idle": "borrowed above the reservation, telemetry below the threshold",
    "telemetry_unknown": "allocated, no telemetry covered it",
    "reliability_reserve": (
        "free capacity the policy holds back for failure, maintenance and recovery"
    ),
    "fragmentation_idle": "free capacity while requests that could have used it waited",
    "unused_guarantee": "reserved GPUs the tenant did not allocate",
    "platform_unallocated": "free capacity nobody reserved or requested",
    "capacity_difference": "allocation beyond the GPUs in service (negative)",
}

PAYERS = {
    "tenant": "the tenant, through its charges",
    "platform": "the central platform",
    "policy": "as the policy says",
    "suspense": "suspense: nobody until telemetry or an owner is known",
}

PARTY_NOTES = {
    "tenants": "what the named tenants are charged",
    "suspense": "usage no ownership interval covers, charged to no tenant until an owner is known",
    "platform": "the pool cost not recovered from tenants, borne centrally",
}
