"""Policy files are validated before dbt sees them; errors name file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuledger.core.home import DEMO_POLICY_DIR
from gpuledger.core.policy import PolicyError, load_policy
from tests.conftest import run_cli, write_policy

GOOD = {
    "tenants": ["atlas,Atlas,,"],
    "ownership": ["slurm_account,atlas,atlas,,2026-01-01T00:00:00Z,"],
    "settings": ["charging_model,allocation_rate"],
}


def test_demo_policy_loads_and_hash_is_stable() -> None:
    first, second = load_policy(DEMO_POLICY_DIR), load_policy(DEMO_POLICY_DIR)
    assert first.settings["charging_model"] == "quota_burst"
    assert first.hash == second.hash and len(first.hash) == 64


def test_snapshot_normalizes_timestamps_and_writes_every_file(tmp_path: Path) -> None:
    policy = load_policy(write_policy(tmp_path / "p", GOOD))
    policy.write_snapshot(tmp_path / "snap")
    assert "2026-01-01 00:00:00" in (tmp_path / "snap" / "ownership.csv").read_text()
    assert (tmp_path / "snap" / "credits.csv").read_text().startswith("period,tenant_id")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"ownership": ["slurm_account,atlas,atlas,,next tuesday,"]},
            r"ownership.csv:2: field valid_from: 'next tuesday' is not an ISO 8601 timestamp",
        ),
        (
            {"ownership": ["cluster,atlas,atlas,,2026-01-01T00:00:00Z,"]},
            r"ownership.csv:2: field scope_type: 'cluster' is not one of",
        ),
        (
            {"ownership": ["slurm_account,atlas,ghost,,2026-01-01T00:00:00Z,"]},
            r"ownership.csv:2: field tenant_id: 'ghost' is not in tenants.csv",
        ),
        (
            {"ownership": ["slurm_account,atlas,atlas,,2026-02-01T00:00:00Z,2026-01-01T00:00:00Z"]},
            r"ownership.csv:2: field valid_to: .* is not after valid_from",
        ),
        (
            {"settings": ["charging_model,per_vibe"]},
            r"settings.csv:2: setting charging_model: 'per_vibe' is not one of",
        ),
        ({"settings": ["currency,USD"]}, r"settings.csv: setting charging_model is required"),
        (
            {"reservations": ["atlas,h100,lots,research,2026-01-01T00:00:00Z,"]},
            r"reservations.csv:2: field reserved_gpus: 'lots' is not a number",
        ),
        (
            {"cost_pools": ["2026-13,h100,100,0.5,USD"]},
            r"cost_pools.csv:2: field period: '2026-13' has no month 13",
        ),
        (
            {"cost_pools": ["2026-01,h100,100,1.5,USD"]},
            r"cost_pools.csv:2: field fixed_share: '1.5' is not between 0 and 1",
        ),
        (
            {"rate_card": ["v1,2026-01-01T00:00:00Z,,h100,per_token,1,USD"]},
            r"rate_card.csv:2: field charge_basis: 'per_token' is not one of",
        ),
    ],
)
def test_bad_policy_values_name_file_line_and_field(
    tmp_path: Path, change: dict, message: str
) -> None:
    with pytest.raises(PolicyError, match=message):
        load_policy(write_policy(tmp_path / "p", GOOD | change))


def test_missing_required_file_and_column(tmp_path: Path) -> None:
    folder = write_policy(tmp_path / "p", GOOD)
    (folder / "tenants.csv").unlink()
    with pytest.raises(PolicyError, match=r"tenants.csv: required policy file is missing"):
        load_policy(folder)
    (folder / "tenants.csv").write_text("tenant_id,tenant_name\natlas,Atlas\n")
    with pytest.raises(
        PolicyError, match=r"tenants.csv:1: missing column\(s\) department, cost_center"
    ):
        load_policy(folder)


def test_cli_reports_policy_errors_without_a_traceback(tmp_path: Path, home: Path) -> None:
    folder = write_policy(tmp_path / "p", GOOD | {"settings": ["charging_model,nope"]})
    result = run_cli(home, folder, "build")
    assert result.exit_code == 1
    assert result.stderr.startswith("gpuledger: ") and "settings.csv:2" in result.stderr
    assert "Traceback" not in result.stderr


WORK_HEADERS = {
    "endpoint_weights": "weight_version,valid_from,valid_to,endpoint_id,unit,weight",
    "endpoint_scopes": "endpoint_id,scope_type,scope_key,workload_prefix,valid_from,valid_to",
    "failure_policy": "failure_class,payer,is_avoidable_rework",
    "failure_reasons": "source_system,match_on,match_value,failure_class",
}


def _work_policy(folder: Path, tables: dict[str, list[str]]) -> Path:
    """GOOD plus the productive-work files given (each with its header)."""
    write_policy(folder, GOOD)
    for name, rows in tables.items():
        (folder / f"{name}.csv").write_text("\n".join([WORK_HEADERS[name], *rows]) + "\n")
    return folder


def test_demo_policy_has_the_work_files() -> None:
    policy = load_policy(DEMO_POLICY_DIR)
    weights = policy.files["endpoint_weights"]
    assert {row["endpoint_id"] for row in weights} == {"chat-shared"}
    assert {row["weight_version"] for row in weights} == {"chat-2026.1", "chat-2026.2"}
    classes = {row["failure_class"]: row["payer"] for row in policy.files["failure_policy"]}
    assert classes["preemption"] == "platform" and classes["unknown"] == "suspense"
    assert policy.files["endpoint_scopes"][0]["workload_prefix"] == "chat-llama70b-"


def test_work_files_are_optional_and_snapshotted_with_their_header(tmp_path: Path) -> None:
    policy = load_policy(write_policy(tmp_path / "p", GOOD))
    assert policy.files["endpoint_weights"] == [] and policy.files["failure_policy"] == []
    policy.write_snapshot(tmp_path / "snap")
    for name, header in WORK_HEADERS.items():
        assert (tmp_path / "snap" / f"{name}.csv").read_text() == header + "\n"


def test_work_files_load_normalized(tmp_path: Path) -> None:
    policy = load_policy(
        _work_policy(
            tmp_path / "p",
            {
                "endpoint_weights": [
                    "v1,2026-01-01T00:00:00Z,2026-10-16T00:00:00Z,chat,input_tokens,0.25",
                    "v2,2026-10-16T00:00:00Z,,chat,input_tokens,0.2",
                ],
                "failure_reasons": ["any,exit_code,65,data"],
            },
        )
    )
    assert [row["valid_to"] for row in policy.files["endpoint_weights"]] == [
        "2026-10-16 00:00:00",
        "",
    ]
    assert policy.files["failure_reasons"][0]["failure_class"] == "data"


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        (
            {"endpoint_weights": ["v1,2026-01-01T00:00:00Z,,chat,images,1"]},
            r"endpoint_weights.csv:2: field unit: 'images' is not one of requests, input_tokens",
        ),
        (
            {"endpoint_weights": ["v1,2026-01-01T00:00:00Z,,chat,requests,-1"]},
            r"endpoint_weights.csv:2: field weight: '-1' is negative",
        ),
        (
            {
                "endpoint_weights": [
                    "v1,2026-01-01T00:00:00Z,2026-11-01T00:00:00Z,chat,requests,1",
                    "v2,2026-10-16T00:00:00Z,,chat,requests,2",
                ]
            },
            r"endpoint_weights.csv:3: field valid_from: chat requests weight v2 overlaps v1 "
            r"\(line 2\)",
        ),
        (
            {"endpoint_weights": ["v1,2026-02-01T00:00:00Z,2026-01-01T00:00:00Z,chat,requests,1"]},
            r"endpoint_weights.csv:2: field valid_to: .* is not after valid_from",
        ),
        (
            {"endpoint_scopes": ["chat,endpoint,chat,,2026-01-01T00:00:00Z,"]},
            r"endpoint_scopes.csv:2: field scope_type: 'endpoint' is not one of",
        ),
        (
            {"failure_policy": ["preemption,nobody,false"]},
            r"failure_policy.csv:2: field payer: 'nobody' is not one of tenant, platform, suspense",
        ),
        (
            {"failure_policy": ["user,tenant,yes"]},
            r"failure_policy.csv:2: field is_avoidable_rework: 'yes' is not one of true, false",
        ),
        (
            {"failure_policy": ["user,tenant,true", "user,platform,false"]},
            r"failure_policy.csv:3: field failure_class: 'user' is already on line 2",
        ),
        (
            {"failure_policy": ["gremlins,tenant,true"]},
            r"failure_policy.csv:2: field failure_class: 'gremlins' is not one of success, user",
        ),
        (
            {"failure_reasons": ["any,exit_code,sixty-five,data"]},
            r"failure_reasons.csv:2: field match_value: 'sixty-five' is not an exit code",
        ),
        (
            {"failure_reasons": ["lsf,exit_code,65,data"]},
            r"failure_reasons.csv:2: field source_system: 'lsf' is not one of slurm, kubernetes",
        ),
        (
            {"failure_reasons": ["any,reason,Evicted,success"]},
            r"failure_reasons.csv:2: field failure_class: 'success' is not one of user, data",
        ),
    ],
)
def test_bad_work_policy_values_name_file_line_and_field(
    tmp_path: Path, tables: dict[str, list[str]], message: str
) -> None:
    with pytest.raises(PolicyError, match=message):
        load_policy(_work_policy(tmp_path / "p", tables))


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("reclamation_threshold_share,1.5", r"setting reclamation_threshold_share: '1.5' is not"),
        ("reclamation_weeks,0", r"setting reclamation_weeks: '0' is not a positive whole number"),
        ("reclamation_weeks,four", r"setting reclamation_weeks: 'four' is not a positive whole"),
        ("productive_work_tolerance_pct,-1", r"setting productive_work_tolerance_pct: '-1' is"),
        (
            "timeslice_attribution,sometimes",
            r"settings.csv:3: setting timeslice_attribution: 'sometimes' is not one of",
        ),
    ],
)
def test_bad_work_settings(tmp_path: Path, setting: str, message: str) -> None:
    folder = write_policy(
        tmp_path / "p", GOOD | {"settings": ["charging_model,allocation_rate", setting]}
    )
    with pytest.raises(PolicyError, match=message):
        load_policy(folder)


def test_work_settings_are_normalized(tmp_path: Path) -> None:
    rows = [
        "charging_model,allocation_rate",
        "reclamation_weeks,06",
        "reclamation_threshold_share,.5",
    ]
    policy = load_policy(write_policy(tmp_path / "p", GOOD | {"settings": rows}))
    assert policy.settings["reclamation_weeks"] == "6"
    assert policy.settings["reclamation_threshold_share"] == "0.5"


OVERLAP_TENANTS = ["atlas,Atlas,,", "boreal,Boreal,,"]
NLP_SHARED = [
    "slurm_account,atlas-train,atlas,,2026-01-01T00:00:00Z,",
    "slurm_account,nlp-shared,atlas,,2026-01-01T00:00:00Z,2026-10-01T00:00:00Z",
    "slurm_account,boreal-serve,boreal,,2026-01-01T00:00:00Z,",
    "slurm_account,nlp-shared,atlas,,2026-10-01T00:00:00Z,2026-10-20T00:00:00Z",
    "slurm_account,boreal-batch,boreal,,2026-01-01T00:00:00Z,",
    "slurm_account,nlp-shared,boreal,,2026-10-15T00:00:00Z,",
]


def test_overlapping_ownership_names_both_lines_scope_and_tenants(tmp_path: Path) -> None:
    folder = write_policy(
        tmp_path / "p", GOOD | {"tenants": OVERLAP_TENANTS, "ownership": NLP_SHARED}
    )
    with pytest.raises(PolicyError) as raised:
        load_policy(folder)
    assert str(raised.value) == (
        f"{folder / 'ownership.csv'}:7: scope slurm_account:nlp-shared: [2026-10-15, open) "
        "overlaps line 5 [2026-10-01, 2026-10-20) (tenants atlas and boreal)"
    )


def test_contiguous_ownership_intervals_are_not_an_overlap(tmp_path: Path) -> None:
    rows = [*NLP_SHARED[:5], "slurm_account,nlp-shared,boreal,,2026-10-20T00:00:00Z,"]
    policy = load_policy(
        write_policy(tmp_path / "p", GOOD | {"tenants": OVERLAP_TENANTS, "ownership": rows})
    )
    assert len(policy.files["ownership"]) == 6


def test_build_fails_on_overlapping_ownership_with_one_line_before_dbt(
    tmp_path: Path, home: Path
) -> None:
    folder = write_policy(
        tmp_path / "p", GOOD | {"tenants": OVERLAP_TENANTS, "ownership": NLP_SHARED}
    )
    result = run_cli(home, folder, "build")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"gpuledger: {folder / 'ownership.csv'}:7: scope slurm_account:nlp-shared: "
        "[2026-10-15, open) overlaps line 5 [2026-10-01, 2026-10-20) (tenants atlas and boreal)"
    ]
    assert not (home / "dbt").exists()


VM = "4d7e2f10-8c3a-4b6e-9f21-6a5c0e3b7d19"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {
                "ownership": [
                    f"vm,{VM},atlas,,2026-01-01T00:00:00Z,",
                    f"vm,{VM.upper()},atlas,,2026-06-01T12:30:00Z,2026-07-01T00:00:00Z",
                ]
            },
            rf"ownership.csv:3: scope vm:{VM.upper()}: \[2026-06-01 12:30:00, 2026-07-01\) "
            r"overlaps line 2 \[2026-01-01, open\) \(tenant atlas twice\)",
        ),
        (
            {"tenants": ["atlas,Atlas,,", "atlas,Atlas again,,"]},
            r"tenants.csv:3: field tenant_id: 'atlas' is already on line 2",
        ),
        (
            {"gpu_classes": ["NVIDIA H100 80GB HBM3,h100", "NVIDIA H100 80GB HBM3,a100"]},
            r"gpu_classes.csv:3: field gpu_model: 'NVIDIA H100 80GB HBM3' is already on line 2",
        ),
        (
            {"credits": ["2026-10,atlas,10,rework,adj-1", "2026-11,atlas,5,rework,adj-1"]},
            r"credits.csv:3: field adjustment_id: 'adj-1' is already on line 2",
        ),
        (
            {"cost_pools": ["2026-10,h100,100,0.5,USD", "2026-10,h100,200,0.5,USD"]},
            r"cost_pools.csv:3: field gpu_class: period 2026-10, gpu_class h100 is already on "
            r"line 2",
        ),
        (
            {"partition_weights": ["mig,A100,1g.10gb,0.142857", "mig,A100,1g.10gb,0.125"]},
            r"partition_weights.csv:3: field profile: sharing_mode mig, gpu_model A100, "
            r"profile 1g.10gb is already on line 2",
        ),
        (
            {
                "partition_weights": [
                    "mig,NVIDIA H100 80GB HBM3,3g.40gb,0.428571",
                    "mig,NVIDIA H100 80GB HBM3,3g.40g,0.428571",
                ]
            },
            r"partition_weights.csv:3: field profile: '3g.40g' is not a MIG profile of NVIDIA "
            r"H100 80GB HBM3 \(seeds/mig_profiles.csv: 1g.10gb, 1g.10gb\+me, 1g.20gb, 2g.20gb, "
            r"3g.40gb, 4g.40gb, 7g.80gb\)",
        ),
        (
            {
                "partition_weights": [
                    "mig,NVIDIA H200,3g.71gb,0.428571",
                    "mig,NVIDIA H200,1g.20gb,0.142857",
                ]
            },
            r"partition_weights.csv:3: field profile: '1g.20gb' is not a MIG profile of NVIDIA "
            r"H200 \(seeds/mig_profiles.csv: 1g.18gb, 1g.18gb\+me, 1g.35gb, 2g.35gb, 3g.71gb, "
            r"4g.71gb, 7g.141gb\)",
        ),
        (
            {"settings": ["charging_model,allocation_rate", "charging_model,cost_pool"]},
            r"settings.csv:3: field key: 'charging_model' is already on line 2",
        ),
        (
            {"settings": ["charging_model,allocation_rate", "reliability_reserve_gpus.h100,two"]},
            r"settings.csv:3: setting reliability_reserve_gpus.h100: 'two' is not a number",
        ),
        (
            {"settings": ["charging_model,allocation_rate", "reliability_reserve_gpus.,2"]},
            r"settings.csv:3: setting reliability_reserve_gpus.: names no GPU class",
        ),
        (
            {
                "rate_card": [
                    "v1,2026-01-01T00:00:00Z,2026-11-01T00:00:00Z,h100,allocated_gpu_hour,2,USD",
                    "v1,2026-01-01T00:00:00Z,,h100,reserved_gpu_hour,1,USD",
                    "v2,2026-10-15T00:00:00Z,,h100,allocated_gpu_hour,3,USD",
                ]
            },
            r"rate_card.csv:4: h100 allocated_gpu_hour: \[2026-10-15, open\) of version v2 "
            r"overlaps line 2 \[2026-01-01, 2026-11-01\) of version v1",
        ),
    ],
)
def test_broken_cross_row_rules_name_file_line_and_the_other_line(
    tmp_path: Path, change: dict, message: str
) -> None:
    with pytest.raises(PolicyError, match=message):
        load_policy(write_policy(tmp_path / "p", GOOD | change))


@pytest.mark.parametrize(
    ("scopes", "message"),
    [
        (
            [
                "chat,k8s_namespace,ml-serving,chat-,2026-01-01T00:00:00Z,",
                "embed,k8s_namespace,ml-serving,,2026-10-01T00:00:00Z,",
            ],
            r"endpoint_scopes.csv:3: scope k8s_namespace:ml-serving prefix '': "
            r"\[2026-10-01, open\) \(endpoint embed\) overlaps line 2 prefix 'chat-' "
            r"\[2026-01-01, open\) \(endpoint chat\)",
        ),
        (
            [
                "chat,k8s_namespace,ml-serving,chat-,2026-01-01T00:00:00Z,",
                "chat-big,k8s_namespace,ml-serving,chat-big-,2026-01-01T00:00:00Z,",
            ],
            r"endpoint_scopes.csv:3: scope k8s_namespace:ml-serving prefix 'chat-big-'",
        ),
    ],
)
def test_endpoint_scopes_that_could_bill_a_workload_twice(
    tmp_path: Path, scopes: list[str], message: str
) -> None:
    with pytest.raises(PolicyError, match=message):
        load_policy(_work_policy(tmp_path / "p", {"endpoint_scopes": scopes}))


def test_endpoint_scopes_with_disjoint_prefixes_or_times_load(tmp_path: Path) -> None:
    scopes = [
        "chat,k8s_namespace,ml-serving,chat-,2026-01-01T00:00:00Z,",
        "embed,k8s_namespace,ml-serving,embed-,2026-01-01T00:00:00Z,",
        "old,k8s_namespace,research,,2026-01-01T00:00:00Z,2026-10-01T00:00:00Z",
        "new,k8s_namespace,research,,2026-10-01T00:00:00Z,",
    ]
    policy = load_policy(_work_policy(tmp_path / "p", {"endpoint_scopes": scopes}))
    assert len(policy.files["endpoint_scopes"]) == 4


def test_personal_data_setting_is_hash_drop_or_keep(tmp_path: Path) -> None:
    rows = ["charging_model,allocation_rate", "personal_data,drop"]
    policy = load_policy(write_policy(tmp_path / "p", GOOD | {"settings": rows}))
    assert policy.settings["personal_data"] == "drop"
    bad = write_policy(
        tmp_path / "bad",
        GOOD | {"settings": ["charging_model,allocation_rate", "personal_data,pseudonymize"]},
    )
    with pytest.raises(
        PolicyError,
        match=r"settings.csv:3: setting personal_data: 'pseudonymize' is not one of hash, drop",
    ):
        load_policy(bad)
