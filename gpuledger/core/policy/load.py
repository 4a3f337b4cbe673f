"""Load, validate and snapshot a policy directory.

Every file is checked before dbt sees it: a bad value is reported with file, line and field.
The validated files are written, normalized (timestamps as UTC `YYYY-MM-DD HH:MM:SS`,
optional files present with their header), to `<home>/policy/`, which dbt reads. The policy
hash recorded on a close is the hash of that snapshot.
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass
from pathlib import Path

from gpuledger.core.policy.files import POLICY_FILES, SETTINGS_CHECKS, PolicyFile
from gpuledger.core.policy.rules import RuleError, check_rules


class PolicyError(ValueError):
    """A policy file is missing or holds a bad value; the message names file, line, field."""


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
    _validate_exit_codes(folder, files)
    try:
        check_rules(files)
    except RuleError as exc:
        raise PolicyError(f"{folder / (exc.file + '.csv')}:{exc.line}: {exc}") from None


def _validate_exit_codes(folder: Path, files: dict[str, list[dict[str, str]]]) -> None:
    """An exit code rule names a whole number."""
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
