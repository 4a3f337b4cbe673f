"""Load, validate and snapshot a policy directory (README "Charging"; policy/demo/README.md).

Every file is checked before dbt sees it: a bad value is reported with file, line and field.
The validated files are written, normalized (timestamps as UTC `YYYY-MM-DD HH:MM:SS`,
optional files present with their header), to `<home>/policy/`, which dbt reads. The policy
hash recorded on a close is the hash of that snapshot.
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from extractors.timeparse import parse_timestamp

Check = Callable[[str], str]


class PolicyError(ValueError):
    """A policy file is missing or holds a bad value; the message names file, line, field."""


def _text(value: str) -> str:
    if not value:
        raise ValueError("is empty")
    return value


def _optional_text(value: str) -> str:
    return value


def _decimal(value: str) -> str:
    try:
        number = Decimal(value)
    except InvalidOperation:
        raise ValueError(f"{value!r} is not a number") from None
    if not number.is_finite():
        raise ValueError(f"{value!r} is not a finite number")
    return str(number)


def _non_negative(value: str) -> str:
    text = _decimal(value)
    if Decimal(text) < 0:
        raise ValueError(f"{value!r} is negative")
    return text


def _fraction(value: str) -> str:
    text = _decimal(value)
    if not Decimal(0) <= Decimal(text) <= Decimal(1):
        raise ValueError(f"{value!r} is not between 0 and 1")
    return text


def _timestamp(value: str) -> str:
    try:
        return parse_timestamp(value).strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        raise ValueError(f"{value!r} is not an ISO 8601 timestamp") from None


def _optional_timestamp(value: str) -> str:
    return _timestamp(value) if value else ""


def parse_period(value: str) -> str:
    """A period `YYYY-MM` (ValueError naming what is wrong otherwise)."""
    parts = value.split("-")
    if len(parts) != 2 or len(parts[0]) != 4 or not all(p.isdigit() for p in parts):
        raise ValueError(f"{value!r} is not a period YYYY-MM")
    if not 1 <= int(parts[1]) <= 12:
        raise ValueError(f"{value!r} has no month {parts[1]}")
    return value


def _positive_int(value: str) -> str:
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"{value!r} is not a positive whole number")
    return str(int(value))


def _one_of(*allowed: str) -> Check:
    def check(value: str) -> str:
        if value not in allowed:
            raise ValueError(f"{value!r} is not one of {', '.join(allowed)}")
        return value

    return check


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
            "tenant_id": _text,
            "tenant_name": _text,
            "department": _optional_text,
            "cost_center": _optional_text,
        },
    ),
    PolicyFile(
        "ownership",
        {
            "scope_type": _one_of(*SCOPE_TYPES),
            "scope_key": _text,
            "tenant_id": _text,
            "project_id": _optional_text,
            "valid_from": _timestamp,
            "valid_to": _optional_timestamp,
        },
    ),
    PolicyFile(
        "reservations",
        {
            "tenant_id": _text,
            "gpu_class": _text,
            "reserved_gpus": _non_negative,
            "service_class": _optional_text,
            "valid_from": _timestamp,
            "valid_to": _optional_timestamp,
        },
    ),
    PolicyFile(
        "rate_card",
        {
            "rate_card_version": _text,
            "valid_from": _timestamp,
            "valid_to": _optional_timestamp,
            "gpu_class": _text,
            "charge_basis": _one_of(*CHARGE_BASES),
            "unit_price": _non_negative,
            "currency": _text,
        },
    ),
    PolicyFile(
        "cost_pools",
        {
            "period": parse_period,
            "gpu_class": _text,
            "total_cost": _non_negative,
            "fixed_share": _fraction,
            "currency": _text,
        },
        required=False,
    ),
    PolicyFile(
        "partition_weights",
        {
            "sharing_mode": _one_of("mig", "vgpu", "timeslice"),
            "gpu_model": _text,
            "profile": _text,
            "capacity_fraction": _fraction,
        },
        required=False,
    ),
    PolicyFile("gpu_classes", {"gpu_model": _text, "gpu_class": _text}),
    PolicyFile(
        "credits",
        {
            "period": parse_period,
            "tenant_id": _text,
            "amount": _decimal,
            "reason": _text,
            "adjustment_id": _text,
        },
        required=False,
    ),
    PolicyFile(
        "overheads",
        {
            "period": parse_period,
            "overhead_id": _text,
            "amount": _non_negative,
            "currency": _text,
            "description": _optional_text,
        },
        required=False,
    ),
    PolicyFile(
        "endpoint_weights",
        {
            "weight_version": _text,
            "valid_from": _timestamp,
            "valid_to": _optional_timestamp,
            "endpoint_id": _text,
            "unit": _one_of(*ENDPOINT_UNITS),
            "weight": _non_negative,
        },
        required=False,
    ),
    PolicyFile(
        "endpoint_scopes",
        {
            "endpoint_id": _text,
            "scope_type": _one_of(*(t for t in SCOPE_TYPES if t != "endpoint")),
            "scope_key": _text,
            "workload_prefix": _optional_text,
            "valid_from": _timestamp,
            "valid_to": _optional_timestamp,
        },
        required=False,
    ),
    PolicyFile(
        "failure_policy",
        {
            "failure_class": _one_of(*FAILURE_CLASSES),
            "payer": _one_of(*PAYERS),
            "is_avoidable_rework": _one_of(*BOOLEANS),
        },
        required=False,
    ),
    PolicyFile(
        "failure_reasons",
        {
            "source_system": _one_of("slurm", "kubernetes", "any"),
            "match_on": _one_of("exit_code", "reason"),
            "match_value": _text,
            "failure_class": _one_of(
                *(c for c in FAILURE_CLASSES if c not in ("success", "running"))
            ),
        },
        required=False,
    ),
    PolicyFile("settings", {"key": _text, "value": _optional_text}),
)

SETTINGS_CHECKS: dict[str, Check] = {
    "charging_model": _one_of(*CHARGING_MODELS),
    "unattributed_tolerance_pct": _non_negative,
    "idle_active_threshold": _fraction,
    "overhead_driver": _one_of(*OVERHEAD_DRIVERS),
    "currency": _text,
    "reclamation_threshold_share": _fraction,
    "reclamation_weeks": _positive_int,
    "productive_work_tolerance_pct": _non_negative,
    "timeslice_attribution": _one_of("process", "modeled"),
}


@dataclass(frozen=True)
class Policy:
    files: dict[str, list[dict[str, str]]]
    settings: dict[str, str]

    def csv_text(self, name: str) -> str:
        spec = next(f for f in POLICY_FILES if f.name == name)
        out = io.StringIO()
        writer = csv.DictWriter(
            out, fieldnames=list(spec.columns), lineterminator="\n", extrasaction="ignore"
        )
        writer.writeheader()
        writer.writerows(self.files[name])
        return out.getvalue()

    @property
    def hash(self) -> str:
        digest = hashlib.sha256()
        for spec in POLICY_FILES:
            digest.update(spec.name.encode() + b"\0" + self.csv_text(spec.name).encode() + b"\0")
        return digest.hexdigest()

    def write_snapshot(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        for spec in POLICY_FILES:
            (folder / f"{spec.name}.csv").write_text(self.csv_text(spec.name))
        (folder / "POLICY_HASH").write_text(self.hash + "\n")


def _read_file(folder: Path, spec: PolicyFile) -> list[dict[str, str]]:
    path = folder / f"{spec.name}.csv"
    if not path.exists():
        if spec.required:
            raise PolicyError(f"{path}: required policy file is missing")
        return []
    reader = csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig")))
    header = [h.strip() for h in next(reader, [])]
    missing = [c for c in spec.columns if c not in header]
    if missing:
        raise PolicyError(f"{path}:1: missing column(s) {', '.join(missing)}")
    rows = []
    for fields in reader:
        line = reader.line_num
        if not any(f.strip() for f in fields):
            continue
        if len(fields) != len(header):
            raise PolicyError(f"{path}:{line}: expected {len(header)} fields, got {len(fields)}")
        raw = dict(zip(header, (f.strip() for f in fields), strict=True))
        row = {}
        for column, check in spec.columns.items():
            try:
                row[column] = check(raw[column])
            except ValueError as exc:
                raise PolicyError(f"{path}:{line}: field {column}: {exc}") from None
        row["_line"] = str(line)
        rows.append(row)
    return rows


def _validate_relations(folder: Path, files: dict[str, list[dict[str, str]]]) -> None:
    tenants = {r["tenant_id"] for r in files["tenants"]}
    for name in ("ownership", "reservations", "credits"):
        for row in files[name]:
            if row["tenant_id"] not in tenants:
                raise PolicyError(
                    f"{folder / (name + '.csv')}:{row['_line']}: field tenant_id: "
                    f"{row['tenant_id']!r} is not in tenants.csv"
                )
    for name in ("ownership", "reservations", "rate_card", "endpoint_weights", "endpoint_scopes"):
        for row in files[name]:
            if row["valid_to"] and row["valid_to"] <= row["valid_from"]:
                raise PolicyError(
                    f"{folder / (name + '.csv')}:{row['_line']}: field valid_to: "
                    f"{row['valid_to']} is not after valid_from {row['valid_from']}"
                )
    _validate_work_policies(folder, files)


def _validate_work_policies(folder: Path, files: dict[str, list[dict[str, str]]]) -> None:
    """Endpoint weight versions of one endpoint and unit never overlap (a request is weighted
    by one version); one payer per failure class; an exit code rule names a whole number."""
    weights = sorted(
        files["endpoint_weights"], key=lambda r: (r["endpoint_id"], r["unit"], r["valid_from"])
    )
    for earlier, later in itertools.pairwise(weights):
        same = (earlier["endpoint_id"], earlier["unit"]) == (later["endpoint_id"], later["unit"])
        if same and (not earlier["valid_to"] or earlier["valid_to"] > later["valid_from"]):
            raise PolicyError(
                f"{folder / 'endpoint_weights.csv'}:{later['_line']}: field valid_from: "
                f"{later['endpoint_id']} {later['unit']} weight {later['weight_version']} "
                f"overlaps {earlier['weight_version']} (line {earlier['_line']})"
            )
    seen: dict[str, str] = {}
    for row in files["failure_policy"]:
        if row["failure_class"] in seen:
            raise PolicyError(
                f"{folder / 'failure_policy.csv'}:{row['_line']}: field failure_class: "
                f"{row['failure_class']!r} is already on line {seen[row['failure_class']]}"
            )
        seen[row["failure_class"]] = row["_line"]
    for row in files["failure_reasons"]:
        if row["match_on"] == "exit_code" and not row["match_value"].lstrip("-").isdigit():
            raise PolicyError(
                f"{folder / 'failure_reasons.csv'}:{row['_line']}: field match_value: "
                f"{row['match_value']!r} is not an exit code"
            )


def load_policy(folder: Path) -> Policy:
    if not folder.is_dir():
        raise PolicyError(f"{folder}: policy directory not found")
    files = {spec.name: _read_file(folder, spec) for spec in POLICY_FILES}
    settings: dict[str, str] = {}
    for row in files["settings"]:
        key, value = row["key"], row["value"]
        if key in SETTINGS_CHECKS:
            try:
                value = SETTINGS_CHECKS[key](value)
            except ValueError as exc:
                raise PolicyError(
                    f"{folder / 'settings.csv'}:{row['_line']}: setting {key}: {exc}"
                ) from None
        settings[key] = value
    if "charging_model" not in settings:
        raise PolicyError(f"{folder / 'settings.csv'}: setting charging_model is required")
    _validate_relations(folder, files)
    return Policy(files=files, settings=settings)
