"""The real samples other projects published (tests/fixtures/real/external/, copied from the
shared fixtures with their SOURCES.md) ingest with the facts SOURCES.md states, every record
read once and landed or quarantined (read = landed + quarantined)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, run_cli, sql, write_policy
from tests.integrity.ingests import counts_of, manifest_of, quarantine_of, rows_of

EXTERNAL = FIXTURES / "real" / "external"
GCM = EXTERNAL / "slurm" / "gcm_sacct_delim-pipehash_multiline-submitline.txt"
TORCHX = EXTERNAL / "slurm" / "torchx_sacct_parsable_hetjob.txt"
MIG_LABELS = (
    EXTERNAL
    / "kubernetes"
    / "nvidia-cloud-native-docs_h100_mig-mixed-all-balanced_node-labels.json"
)
TRITON_VLLM = EXTERNAL / "prometheus" / "triton-vllm-backend_README_vllm-metrics-via-triton.prom"
ISSUE_512 = (
    EXTERNAL / "prometheus" / "dcgm-exporter-issue512_h100_mig-1g.10gb_pod-labels_excerpt.prom"
)
A100_MIG = EXTERNAL / "prometheus" / "nvidia-cloud-native-docs_dcgm-exporter_a100_mig-1g.5gb.prom"
SCRAPE_TIME = "2026-11-27T06:32:00Z"


def ingest(home: Path, source: str, *args: str):
    return run_cli(home, None, "ingest", source, *args)


# --- slurm ------------------------------------------------------------------------------------


def test_gcm_pipe_hash_delimiter_rejoins_the_multiline_submitline(home: Path) -> None:
    result = ingest(home, "slurm", "--file", str(GCM))
    assert result.exit_code == 0, result.stderr
    # header + 4 logical records on 6 physical lines: 201844's SubmitLine holds a newline
    assert counts_of(home, GCM) == (4, 3, 1)
    jobs = {r["job_id"]: r for r in rows_of(home, "slurm_jobs", GCM)}
    assert set(jobs) == {"201729", "201844"}
    failed, requeued = jobs["201729"], jobs["201844"]
    assert (failed["account"], failed["state"], failed["exit_code"], failed["exit_signal"]) == (
        "project",
        "FAILED",
        6,
        0,
    )
    assert failed["alloc_tres"] == "billing=28672,cpu=12288,gres/gpu=1024,node=128"
    assert (requeued["account"], requeued["state"], requeued["source_line"]) == (
        "project1",
        "REQUEUED",
        4,
    )
    seconds = {
        row["account"]: row["alloc_gpu_count"] * (row["end_at"] - row["start_at"]).total_seconds()
        for row in jobs.values()
    }
    assert seconds == {"project": 1024 * 79396, "project1": 256 * 87356}
    assert seconds == {"project": 81_301_504, "project1": 22_363_136}
    assert (failed["elapsed_seconds"], requeued["elapsed_seconds"]) == (79396, 87356)
    (batch,) = rows_of(home, "slurm_steps", GCM)
    assert (batch["job_id"], batch["step_id"], batch["alloc_gpu_count"], batch["source_line"]) == (
        "201729",
        "batch",
        8,
        6,
    )


def test_gcm_orphan_step_is_quarantined_not_promoted(home: Path) -> None:
    result = ingest(home, "slurm", "--file", str(GCM))
    (orphan,) = quarantine_of(home, GCM)
    assert (orphan["line"], orphan["field"]) == (2, "JobID")
    assert orphan["reason"].startswith("slurm_steps: orphan step 200131.0: job 200131 of cluster")
    assert json.loads(orphan["raw"])["alloc_gpu_count"] == 2048  # 2048 x 35317 s kept aside
    assert "warning: 1 step(s) without their job quarantined: 200131.0 (line 2)" in result.stdout
    assert f"quarantined {GCM}:2: field JobID: slurm_steps: orphan step 200131.0" in result.stdout
    # kept, not lost: once its job has landed, a release lands the step as it was parsed
    batch = manifest_of(home, GCM)["batch_id"]
    released = run_cli(
        home, None, "quarantine", "release", "--batch", batch, "--reason", "job 200131 landed"
    )
    assert released.exit_code == 0, released.stderr
    assert "read 1, landed 1, quarantined 0" in released.stdout


def test_torchx_parsable_het_job_needs_a_cluster_and_is_one_het_job(home: Path) -> None:
    refused = ingest(home, "slurm", "--file", str(TORCHX))
    assert refused.exit_code == 1
    assert refused.stderr == (
        f"gpuledger: {TORCHX}: line 1: the sacct header has no Cluster column: give --cluster "
        "NAME (the cluster these jobs ran on)\n"
    )
    assert not (home / "raw" / "batches").exists() or not list((home / "raw" / "batches").glob("*"))
    result = ingest(home, "slurm", "--cluster", "torchx", "--file", str(TORCHX))
    assert result.exit_code == 0, result.stderr
    # --parsable: every line ends with |; 3 components of het job 176 and their 4 steps
    assert counts_of(home, TORCHX) == (7, 7, 0)
    jobs = rows_of(home, "slurm_jobs", TORCHX)
    assert [(r["job_id"], r["het_job_id"], r["het_job_offset"]) for r in jobs] == [
        ("176+0", "176", 0),
        ("176+1", "176", 1),
        ("176+2", "176", 2),
    ]
    assert {(r["state"], r["exit_code"], r["cpu_count"], r["account"]) for r in jobs} == {
        ("COMPLETED", 0, 1, None)
    }
    assert sum(r["alloc_gpu_count"] for r in jobs) == 0
    steps = rows_of(home, "slurm_steps", TORCHX)
    assert sorted((r["job_id"], r["step_id"]) for r in steps) == [
        ("176+0", "0"),
        ("176+0", "batch"),
        ("176+1", "0"),
        ("176+2", "0"),
    ]


def test_torchx_het_job_builds_to_one_workload_of_three_components(
    tmp_path: Path, home: Path
) -> None:
    policy = write_policy(tmp_path / "policy", {"settings": ["charging_model,allocation_rate"]})
    assert ingest(home, "slurm", "--cluster", "torchx", "--file", str(TORCHX)).exit_code == 0
    built = run_cli(home, policy, "build")
    assert built.exit_code == 0, built.stderr
    assert sql(
        home, "select workload_id, component_id from staging.stg_slurm__jobs order by 2"
    ) == [
        ("slurm:torchx:176", "slurm:torchx:176+0"),
        ("slurm:torchx:176", "slurm:torchx:176+1"),
        ("slurm:torchx:176", "slurm:torchx:176+2"),
    ]
    assert sql(
        home,
        "select workload_id, job_id, job_name, component_count, alloc_gpu_count "
        "from intermediate.int_slurm_workloads",
    ) == [("slurm:torchx:176", "176", "echo-echo-0", 3, 0)]
    assert sql(home, "select workload_id, job_state from marts.dim_workload") == [
        ("slurm:torchx:176", "COMPLETED")
    ]


# --- kubernetes -------------------------------------------------------------------------------


def test_mig_mixed_node_with_gpu_replicas_zero_lands_its_mig_capacity(
    tmp_path: Path, home: Path
) -> None:
    # The fixture is the node's labels only (`kubectl get node -o json | jq .metadata.labels`):
    # the test builds the Node object around them, advertising what the labels count (the
    # device plugin's mixed strategy: one resource per profile; the full-GPU resource at 0).
    labels = json.loads(MIG_LABELS.read_text())
    assert len(labels) == 197 and labels["nvidia.com/gpu.replicas"] == "0"
    profiles = ("1g.10gb", "2g.20gb", "3g.40gb")
    capacity = {f"nvidia.com/mig-{p}": labels[f"nvidia.com/mig-{p}.count"] for p in profiles}
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "h100-mig-0", "uid": "node-uid-h100-mig-0", "labels": labels},
        "status": {
            "capacity": {"nvidia.com/gpu": "0", **capacity},
            "allocatable": {"nvidia.com/gpu": "0", **capacity},
        },
    }
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [node]}))
    result = ingest(
        home, "kubernetes", "--file", str(path), "--extracted-at", "2024-05-14T18:00:00Z"
    )
    assert result.exit_code == 0, result.stderr
    assert counts_of(home, path) == (1, 1, 0)  # before: quarantined, "replica count '0' ..."
    rows = {r["mig_profile"]: r for r in rows_of(home, "kubernetes_nodes", path)}
    assert {p: rows[p]["capacity"] for p in rows} == {"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1}
    assert sum(r["capacity"] for r in rows.values()) == 4  # 4 MIG devices
    slices = sum(int(labels[f"nvidia.com/mig-{p}.slices.gi"]) * rows[p]["capacity"] for p in rows)
    assert slices == 7  # 7 GPU-instance slices of the one H100
    assert {
        (r["sharing_mode"], r["mig_strategy"], r["gpu_product"], r["timeslice_replicas"])
        for r in rows.values()
    } == {("mig", "mixed", "NVIDIA-H100-80GB-HBM3", None)}
    memory = {p: int(labels[f"nvidia.com/mig-{p}.memory"]) for p in profiles}
    assert memory == {"1g.10gb": 9984, "2g.20gb": 20096, "3g.40gb": 40320}


# --- prometheus -------------------------------------------------------------------------------


def test_triton_exported_vllm_lands_with_its_model_and_tokens(home: Path) -> None:
    result = ingest(home, "prometheus", "--file", str(TRITON_VLLM), "--scrape-time", SCRAPE_TIME)
    assert result.exit_code == 0, result.stderr
    # 48 lines: 26 samples, 16 HELP/TYPE lines and 6 `...` elisions (reported, not records)
    assert counts_of(home, TRITON_VLLM) == (26, 26, 0)
    assert "warning: 6 elided line(s) '...' are not samples (lines 12, 19, 26, 33, 40, 47)" in (
        result.stdout
    )
    rows = rows_of(home, "prometheus_model_server_samples", TRITON_VLLM)
    assert {(r["server"], r["model"], r["model_version"]) for r in rows} == {
        ("vllm", "vllm_model", "1")
    }
    value = {r["source_metric"]: r["value"] for r in rows if "le" not in r["series_labels"]}
    assert (value["vllm:prompt_tokens_total"], value["vllm:generation_tokens_total"]) == (10, 16)
    assert value["vllm:request_prompt_tokens_sum"] == 10
    assert value["vllm:request_generation_tokens_sum"] == 16
    assert value["vllm:time_to_first_token_seconds_count"] == 1
    assert value["vllm:time_to_first_token_seconds_sum"] == 0.03233122825622559
    assert value["vllm:e2e_request_latency_seconds_sum"] == 0.08686184883117676
    families = {r["source_metric"].removesuffix("_total") for r in rows}
    families = {
        f.rsplit("_", 1)[0] if f.endswith(("_sum", "_count", "_bucket")) else f for f in families
    }
    assert len(families) == 8  # 2 counters, 6 histograms
    assert manifest_of(home, TRITON_VLLM)["extracted_at_basis"] == "scrape_time"


def test_dcgm_issue512_mig_instances_with_and_without_pods(home: Path) -> None:
    assert (
        ingest(home, "prometheus", "--file", str(ISSUE_512), "--scrape-time", SCRAPE_TIME).exit_code
        == 0
    )
    assert counts_of(home, ISSUE_512) == (3, 3, 0)
    rows = {r["gpu_instance_id"]: r for r in rows_of(home, "prometheus_gpu_samples", ISSUE_512)}
    assert set(rows) == {"7", "8", "9"}
    assert {
        (r["metric"], r["gpu_index"], r["gpu_instance_profile"], r["value"]) for r in rows.values()
    } == {("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "0", "1g.10gb", 0.0)}
    assert {r["gpu_uuid"] for r in rows.values()} == {"GPU-58e8f5ea-13cc-013a-d88f-2bcf5ae8bc77"}
    pods = {gi: (r["namespace"], r["pod"]) for gi, r in rows.items()}
    assert pods == {
        "7": ("model-playground-stg", "text-embedding-predictor-00008-deployment-57946f6c67-vdtjl"),
        "8": (None, None),  # an idle slice: no pod labels
        "9": ("model-playground-stg", "tts-predictor-00011-deployment-5554f75554-8j8pl"),
    }


def test_dcgm_a100_whole_gpu_and_mig_instance_series(home: Path) -> None:
    assert (
        ingest(home, "prometheus", "--file", str(A100_MIG), "--scrape-time", SCRAPE_TIME).exit_code
        == 0
    )
    assert counts_of(home, A100_MIG) == (21, 21, 0)
    rows = rows_of(home, "prometheus_gpu_samples", A100_MIG)
    assert len({r["metric"] for r in rows}) == 17
    assert {(r["gpu_uuid"], r["gpu_index"]) for r in rows} == {
        ("GPU-34319582-d595-d1c7-d1d2-179bcfa61660", "0")
    }
    whole = {r["metric"]: r["value"] for r in rows if r["gpu_instance_id"] is None}
    mig = {r["metric"]: r["value"] for r in rows if r["gpu_instance_id"] is not None}
    assert (len(whole), len(mig)) == (17, 4)
    assert set(mig) == {
        "DCGM_FI_DEV_XID_ERRORS",
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
        "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
        "DCGM_FI_PROF_DRAM_ACTIVE",
    }
    assert {
        (r["gpu_instance_profile"], r["gpu_instance_id"]) for r in rows if r["gpu_instance_id"]
    } == {("1g.5gb", "13")}
    # the parent's and the instance's engine activity: summing them double counts
    assert (whole["DCGM_FI_PROF_GR_ENGINE_ACTIVE"], mig["DCGM_FI_PROF_GR_ENGINE_ACTIVE"]) == (
        0.99563,
        0.995687,
    )
    assert (whole["DCGM_FI_DEV_FB_USED"], whole["DCGM_FI_DEV_FB_FREE"]) == (4845, 35690)
    assert whole["DCGM_FI_DEV_POWER_USAGE"] == 409.692
    assert whole["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"] == 319159391


@pytest.mark.parametrize("path", [TRITON_VLLM, ISSUE_512, A100_MIG], ids=lambda p: p.name)
def test_a_scrape_without_scrape_time_is_refused_in_one_line(home: Path, path: Path) -> None:
    result = ingest(home, "prometheus", "--file", str(path))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"gpuledger: {path}: line ")
    assert "give --scrape-time ISO (when the scrape was taken)" in result.stderr
    assert result.stderr.count("\n") == 1
