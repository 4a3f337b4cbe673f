"""The benchmark deployment's policy: 20 tenants, 60 Slurm accounts three to a tenant, the
tenants' Kubernetes namespaces owned by their tenant label, ten tenants reserving half the
fleet between them, the shared endpoint priced by output tokens, quota-burst charging."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchmarks.fleet import (
    ACCOUNTS,
    ENDPOINT,
    GPU_CLASS,
    H100_MODEL,
    SERVING_NAMESPACE,
    SERVING_PREFIX,
    TENANTS,
)

SINCE = "2026-01-01T00:00:00Z"


def write_policy(folder: Path, gpus: int, expected_sources: Sequence[str]) -> Path:
    """The policy files; `expected_sources` are the sources the close expects to cover each
    period to its end (settle lag 0: the bench's files are read at the period's end)."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "tenants.csv": ["tenant_id,tenant_name,department,cost_center"]
        + [f"{t},Tenant {t},dept-{t},cc-{t}" for t in TENANTS],
        "ownership.csv": ["scope_type,scope_key,tenant_id,project_id,valid_from,valid_to"]
        + [
            f"slurm_account,{account},{TENANTS[number % len(TENANTS)]},,{SINCE},"
            for number, account in enumerate(ACCOUNTS)
        ]
        + [f"endpoint,{ENDPOINT},{TENANTS[0]},,{SINCE},"],
        "reservations.csv": ["tenant_id,gpu_class,reserved_gpus,service_class,valid_from,valid_to"]
        + [f"{t},{GPU_CLASS},{gpus // 20},research,{SINCE}," for t in TENANTS[:10]],
        "rate_card.csv": [
            "rate_card_version,valid_from,valid_to,gpu_class,charge_basis,unit_price,currency",
            f"b1,{SINCE},,{GPU_CLASS},allocated_gpu_hour,2.50,USD",
            f"b1,{SINCE},,{GPU_CLASS},reserved_gpu_hour,2.00,USD",
            f"b1,{SINCE},,{GPU_CLASS},borrowed_gpu_hour,3.00,USD",
        ],
        "gpu_classes.csv": ["gpu_model,gpu_class", f"{H100_MODEL},{GPU_CLASS}"],
        "endpoint_scopes.csv": [
            "endpoint_id,scope_type,scope_key,workload_prefix,valid_from,valid_to",
            f"{ENDPOINT},k8s_namespace,{SERVING_NAMESPACE},{SERVING_PREFIX},{SINCE},",
        ],
        "endpoint_weights.csv": [
            "weight_version,valid_from,valid_to,endpoint_id,unit,weight",
            f"w1,{SINCE},,{ENDPOINT},output_tokens,1",
        ],
        "expected_sources.csv": ["source,settle_lag_hours"]
        + [f"{source},0" for source in expected_sources],
        "settings.csv": [
            "key,value",
            "charging_model,quota_burst",
            "unattributed_tolerance_pct,2",
            "overhead_driver,allocated_hours",
            "currency,USD",
            "settle_lag_hours,0",
        ],
    }
    for name, lines in files.items():
        (folder / name).write_text("\n".join(lines) + "\n")
    return folder
