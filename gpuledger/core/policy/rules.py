"""The policy's rules across rows, checked before dbt runs: keys that must be unique and
intervals that must not overlap. Each was a dbt test (or a fan-out that a dbt test caught as
a duplicate grain) that failed the build with nothing but its test id; here a broken rule
names the file, the line, the scope and the other line it collides with."""

from __future__ import annotations

import csv
import functools
import itertools
from collections.abc import Callable, Sequence

from gpuledger.core.home import PROJECT_DIR
from gpuledger.core.policy.values import non_negative_value

Row = dict[str, str]
Files = dict[str, list[Row]]

RESERVE_PREFIX = "reliability_reserve_gpus."
# NVIDIA's MIG profiles per GPU model (the dbt seed `mig_profiles`, schema reference)
MIG_PROFILES_SEED = PROJECT_DIR / "seeds" / "mig_profiles.csv"

# file: the columns that name one row (a dbt `unique` test or the grain a join fans out on)
UNIQUE_KEYS: dict[str, tuple[str, ...]] = {
    "tenants": ("tenant_id",),
    "gpu_classes": ("gpu_model",),
    "credits": ("adjustment_id",),
    "cost_pools": ("period", "gpu_class"),
    "partition_weights": ("sharing_mode", "gpu_model", "profile"),
    "failure_policy": ("failure_class",),
    "settings": ("key",),
}


class RuleError(ValueError):
    """A broken rule: `file`, `line` and the message after them (the loader adds the path)."""

    def __init__(self, file: str, line: str, message: str) -> None:
        super().__init__(message)
        self.file, self.line = file, line


def _instant(value: str) -> str:
    """A normalized timestamp as the shortest honest text: the date when it is midnight."""
    return value.removesuffix(" 00:00:00")


def _interval(row: Row) -> str:
    return f"[{_instant(row['valid_from'])}, {_instant(row['valid_to']) or 'open'})"


def _overlap(earlier: Row, later: Row) -> bool:
    """Whether two `[valid_from, valid_to)` intervals (empty valid_to: open) share an instant."""
    return (not earlier["valid_to"] or later["valid_from"] < earlier["valid_to"]) and (
        not later["valid_to"] or earlier["valid_from"] < later["valid_to"]
    )


def _first_overlap(
    rows: Sequence[Row],
    group: Callable[[Row], tuple[str, ...]],
    collide: Callable[[Row, Row], bool] = lambda _earlier, _later: True,
) -> tuple[Row, Row] | None:
    """The pair of rows of one group whose intervals overlap (and that `collide`) with the
    lowest later line: (the row on the earlier line, the row on the later line)."""
    found: tuple[Row, Row] | None = None
    ordered = sorted(rows, key=lambda row: (group(row), int(row["_line"])))
    for _, grouped in itertools.groupby(ordered, key=group):
        members = list(grouped)
        for index, later in enumerate(members):
            if found is not None and int(later["_line"]) >= int(found[1]["_line"]):
                break
            for earlier in members[:index]:
                if _overlap(earlier, later) and collide(earlier, later):
                    found = (earlier, later)
                    break
    return found


def _scope_key(row: Row) -> tuple[str, ...]:
    """VM UUIDs compare case-insensitively (as int_policy_ownership_timeline lowers them)."""
    key = row["scope_key"].lower() if row["scope_type"] == "vm" else row["scope_key"]
    return (row["scope_type"], key)


def _check_ownership(rows: Sequence[Row]) -> None:
    pair = _first_overlap(rows, _scope_key)
    if pair is not None:
        earlier, later = pair
        tenants = (
            f"tenants {earlier['tenant_id']} and {later['tenant_id']}"
            if earlier["tenant_id"] != later["tenant_id"]
            else f"tenant {later['tenant_id']} twice"
        )
        raise RuleError(
            "ownership",
            later["_line"],
            f"scope {later['scope_type']}:{later['scope_key']}: {_interval(later)} overlaps "
            f"line {earlier['_line']} {_interval(earlier)} ({tenants})",
        )


def _check_rate_card(rows: Sequence[Row]) -> None:
    """One price per GPU class and charge basis at every instant: two would price a segment
    twice."""
    pair = _first_overlap(rows, lambda r: (r["gpu_class"], r["charge_basis"]))
    if pair is not None:
        earlier, later = pair
        raise RuleError(
            "rate_card",
            later["_line"],
            f"{later['gpu_class']} {later['charge_basis']}: {_interval(later)} of version "
            f"{later['rate_card_version']} overlaps line {earlier['_line']} {_interval(earlier)} "
            f"of version {earlier['rate_card_version']}",
        )


def _check_endpoint_weights(rows: Sequence[Row]) -> None:
    """A request is weighted by one version of its endpoint and unit."""
    pair = _first_overlap(rows, lambda r: (r["endpoint_id"], r["unit"]))
    if pair is not None:
        earlier, later = pair
        raise RuleError(
            "endpoint_weights",
            later["_line"],
            f"field valid_from: {later['endpoint_id']} {later['unit']} weight "
            f"{later['weight_version']} overlaps {earlier['weight_version']} "
            f"(line {earlier['_line']})",
        )


def _check_endpoint_scopes(rows: Sequence[Row]) -> None:
    """A workload serves one endpoint: two mappings of one scope at one instant whose workload
    prefixes can both match one name ('' matches all) would bill its hours twice."""

    def collide(earlier: Row, later: Row) -> bool:
        first, second = earlier["workload_prefix"], later["workload_prefix"]
        return first.startswith(second) or second.startswith(first)

    pair = _first_overlap(rows, lambda r: (r["scope_type"], r["scope_key"]), collide)
    if pair is not None:
        earlier, later = pair
        raise RuleError(
            "endpoint_scopes",
            later["_line"],
            f"scope {later['scope_type']}:{later['scope_key']} prefix "
            f"{later['workload_prefix']!r}: {_interval(later)} (endpoint {later['endpoint_id']}) "
            f"overlaps line {earlier['_line']} prefix {earlier['workload_prefix']!r} "
            f"{_interval(earlier)} (endpoint {earlier['endpoint_id']})",
        )


@functools.cache
def mig_profiles() -> dict[str, tuple[str, ...]]:
    """The MIG profiles of each catalogued GPU model, in the seed's order."""
    catalog: dict[str, list[str]] = {}
    with MIG_PROFILES_SEED.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            catalog.setdefault(row["gpu_model"], []).append(row["profile"])
    return {model: tuple(profiles) for model, profiles in catalog.items()}


def _check_mig_profiles(rows: Sequence[Row]) -> None:
    """A MIG weight of a catalogued GPU model names one of its profiles: a mistyped profile
    weighs no instance, and the allocations it meant would be left unweighted. A model the
    catalog does not know is the site's to name (its profiles are not checked)."""
    catalog = mig_profiles()
    for row in rows:
        known = catalog.get(row["gpu_model"])
        if row["sharing_mode"] == "mig" and known and row["profile"] not in known:
            raise RuleError(
                "partition_weights",
                row["_line"],
                f"field profile: {row['profile']!r} is not a MIG profile of {row['gpu_model']} "
                f"(seeds/mig_profiles.csv: {', '.join(known)})",
            )


def _check_unique(name: str, rows: Sequence[Row], columns: tuple[str, ...]) -> None:
    seen: dict[tuple[str, ...], str] = {}
    for row in rows:
        key = tuple(row[column] for column in columns)
        if key in seen:
            pairs = zip(columns, key, strict=True)
            named = repr(key[0]) if len(key) == 1 else ", ".join(f"{c} {v}" for c, v in pairs)
            raise RuleError(
                name, row["_line"], f"field {columns[-1]}: {named} is already on line {seen[key]}"
            )
        seen[key] = row["_line"]


def _check_reserves(rows: Sequence[Row]) -> None:
    """Settings `reliability_reserve_gpus.<gpu_class>` name a class and a GPU count."""
    for row in rows:
        if not row["key"].startswith(RESERVE_PREFIX):
            continue
        if not row["key"].removeprefix(RESERVE_PREFIX):
            raise RuleError("settings", row["_line"], f"setting {row['key']}: names no GPU class")
        try:
            non_negative_value(row["value"])
        except ValueError as exc:
            raise RuleError("settings", row["_line"], f"setting {row['key']}: {exc}") from None


def check_rules(files: Files) -> None:
    """Raise RuleError for the first broken rule (file by file, lowest line first)."""
    for name, columns in UNIQUE_KEYS.items():
        _check_unique(name, files[name], columns)
    _check_reserves(files["settings"])
    _check_mig_profiles(files["partition_weights"])
    _check_ownership(files["ownership"])
    _check_rate_card(files["rate_card"])
    _check_endpoint_weights(files["endpoint_weights"])
    _check_endpoint_scopes(files["endpoint_scopes"])
