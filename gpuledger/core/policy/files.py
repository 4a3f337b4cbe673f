"""The policy directory's files: each file's columns with the check of each field, and the
settings' checks (README "Charging"; policy/demo/README.md describes each file)."""

from __future__ import annotations

from dataclasses import dataclass

from extractors.commands import source_commands
from extractors.screening import covers_time
from gpuledger.core.policy.values import (
    Check,
    decimal_value,
    fraction_value,
    non_negative_value,
    one_of,
    optional_text_value,
    optional_timestamp_value,
    parse_period,
    positive_int_value,
    text_value,
    timestamp_value,
)


def evidence_source_value(value: str) -> str:
    """A source whose evidence covers time (`gpuledger ingest SOURCE`; not the inventory)."""
    sources = sorted(name for name in source_commands() if covers_time(name))
    return one_of(*sources)(value)


def optional_non_negative_value(value: str) -> str:
    return non_negative_value(value) if value else ""


SCOPE_TYPES = ("slurm_account", "k8s_namespace", "vm", "endpoint")
CHARGE_BASES = (
    "allocated_gpu_hour",
    "reserved_gpu_hour",
    "borrowed_gpu_hour",
    "input_tokens_million",
    "output_tokens_million",
)
CHARGING_MODELS = ("allocation_rate", "cost_pool", "quota_burst")
OVERHEAD_DRIVERS = ("allocated_hours", "even", "none")
ENDPOINT_UNITS = ("requests", "input_tokens", "output_tokens")
FAILURE_CLASSES = (
    "success",
    "user",
    "data",
    "infrastructure",
    "preemption",
    "timeout",
    "out_of_memory",
    "cancelled",
    "unknown",
    "running",
)
PAYERS = ("tenant", "platform", "suspense")
BOOLEANS = ("true", "false")


@dataclass(frozen=True)
class PolicyFile:
    name: str
    columns: dict[str, Check]
    required: bool = True


POLICY_FILES: tuple[PolicyFile, ...] = (
    PolicyFile(
        "tenants",
        {
            "tenant_id": text_value,
            "tenant_name": text_value,
            "department": optional_text_value,
            "cost_center": optional_text_value,
        },
    ),
    PolicyFile(
        "ownership",
        {
            "scope_type": one_of(*SCOPE_TYPES),
            "scope_key": text_value,
            "tenant_id": text_value,
            "project_id": optional_text_value,
            "valid_from": timestamp_value,
            "valid_to": optional_timestamp_value,
        },
    ),
    PolicyFile(
        "reservations",
        {
            "tenant_id": text_value,
            "gpu_class": text_value,
            "reserved_gpus": non_negative_value,
            "service_class": optional_text_value,
            "valid_from": timestamp_value,
            "valid_to": optional_timestamp_value,
        },
    ),
    PolicyFile(
        "rate_card",
        {
            "rate_card_version": text_value,
            "valid_from": timestamp_value,
            "valid_to": optional_timestamp_value,
            "gpu_class": text_value,
            "charge_basis": one_of(*CHARGE_BASES),
            "unit_price": non_negative_value,
            "currency": text_value,
        },
    ),
    PolicyFile(
        "cost_pools",
        {
            "period": parse_period,
            "gpu_class": text_value,
            "total_cost": non_negative_value,
            "fixed_share": fraction_value,
            "currency": text_value,
        },
        required=False,
    ),
    PolicyFile(
        "partition_weights",
        {
            "sharing_mode": one_of("mig", "vgpu", "timeslice"),
            "gpu_model": text_value,
            "profile": text_value,
            "capacity_fraction": fraction_value,
        },
        required=False,
    ),
    PolicyFile("gpu_classes", {"gpu_model": text_value, "gpu_class": text_value}),
    PolicyFile(
        "credits",
        {
            "period": parse_period,
            "tenant_id": text_value,
            "amount": decimal_value,
            "reason": text_value,
            "adjustment_id": text_value,
        },
        required=False,
    ),
    PolicyFile(
        "overheads",
        {
            "period": parse_period,
            "overhead_id": text_value,
            "amount": non_negative_value,
            "currency": text_value,
            "description": optional_text_value,
        },
        required=False,
    ),
    PolicyFile(
        "endpoint_weights",
        {
            "weight_version": text_value,
            "valid_from": timestamp_value,
            "valid_to": optional_timestamp_value,
            "endpoint_id": text_value,
            "unit": one_of(*ENDPOINT_UNITS),
            "weight": non_negative_value,
        },
        required=False,
    ),
    PolicyFile(
        "endpoint_scopes",
        {
            "endpoint_id": text_value,
            "scope_type": one_of(*(t for t in SCOPE_TYPES if t != "endpoint")),
            "scope_key": text_value,
            "workload_prefix": optional_text_value,
            "valid_from": timestamp_value,
            "valid_to": optional_timestamp_value,
        },
        required=False,
    ),
    PolicyFile(
        "failure_policy",
        {
            "failure_class": one_of(*FAILURE_CLASSES),
            "payer": one_of(*PAYERS),
            "is_avoidable_rework": one_of(*BOOLEANS),
        },
        required=False,
    ),
    PolicyFile(
        "failure_reasons",
        {
            "source_system": one_of("slurm", "kubernetes", "any"),
            "match_on": one_of("exit_code", "reason"),
            "match_value": text_value,
            "failure_class": one_of(
                *(c for c in FAILURE_CLASSES if c not in ("success", "running"))
            ),
        },
        required=False,
    ),
    PolicyFile(
        "expected_sources",
        {"source": evidence_source_value, "settle_lag_hours": optional_non_negative_value},
        required=False,
    ),
    PolicyFile("settings", {"key": text_value, "value": optional_text_value}),
)

SETTINGS_CHECKS: dict[str, Check] = {
    "charging_model": one_of(*CHARGING_MODELS),
    "unattributed_tolerance_pct": non_negative_value,
    "idle_active_threshold": fraction_value,
    "overhead_driver": one_of(*OVERHEAD_DRIVERS),
    "currency": text_value,
    "reclamation_threshold_share": fraction_value,
    "reclamation_weeks": positive_int_value,
    "productive_work_tolerance_pct": non_negative_value,
    "timeslice_attribution": one_of("process", "modeled"),
    "quarantine_tolerance_pct": non_negative_value,
    "settle_lag_hours": non_negative_value,
    "coverage_gap_tolerance_minutes": non_negative_value,
    "personal_data": one_of("hash", "drop", "keep"),
    "focus_billing_account_id": text_value,
    "focus_billing_account_name": text_value,
    "focus_provider_name": text_value,
}
