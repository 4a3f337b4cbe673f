"""NVML staging: units converted once, one row per device per round, owners kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuledger.core.home import DEMO_POLICY_DIR
from gpuledger.core.warehouse import prepare, run_dbt
from tests.conftest import FIXTURES, run_cli, sql
from tests.fixtures.nvml import node

RECORDED = FIXTURES / "nvml" / "gpu-node-07.jsonl"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("nvml") / "home"
    first_round = tmp_path_factory.mktemp("spool") / "first-round.jsonl"
    first_round.write_text("".join(RECORDED.read_text().splitlines(keepends=True)[:13]))
    for path in (RECORDED, first_round):  # the first round lands twice (live + --output)
        assert run_cli(home, None, "ingest", "nvml", "--file", str(path)).exit_code == 0
    prepare(home, DEMO_POLICY_DIR)  # this source's staging models and what they read
    run_dbt(
        home, ["build", "--select", "+path:models/staging/nvml", "--indirect-selection", "cautious"]
    )
    return home


def test_devices_one_row_per_uuid_with_mig_profiles(built: Path) -> None:
    rows = sql(
        built,
        "select device_uuid, device_kind, gpu_model, gpu_instance_profile, gpu_instance_id "
        "from staging.stg_nvml__devices order by gpu_index, mig_index nulls first",
    )
    assert rows == [
        (node.H100_UUID, "gpu", "NVIDIA H100 80GB HBM3", None, None),
        (node.A100_UUID, "gpu", "NVIDIA A100-SXM4-80GB", None, None),
        (node.MIG_3G, "mig", "NVIDIA A100-SXM4-80GB", "3g.40gb", 1),
        (node.MIG_2G, "mig", "NVIDIA A100-SXM4-80GB", "2g.20gb", 5),
        (node.MIG_1G_A, "mig", "NVIDIA A100-SXM4-80GB", "1g.10gb", 13),
        (node.MIG_1G_B, "mig", "NVIDIA A100-SXM4-80GB", "1g.10gb", 14),
    ]


def test_samples_are_converted_once_and_deduplicated(built: Path) -> None:
    assert sql(built, "select count(*) from staging.stg_nvml__samples") == [(12,)]
    rows = sql(
        built,
        "select gpu_active_ratio, memory_active_ratio, power_watts, energy_joules, "
        "memory_used_bytes from staging.stg_nvml__samples "
        "where device_uuid = ? order by sampled_at",
        [node.H100_UUID],
    )
    assert rows[0] == (0.87, 0.41, 612.345, 9_876_543.21, 49 * 1024**3)


def test_mig_rows_have_no_utilization_and_lost_rows_are_flagged(built: Path) -> None:
    rows = sql(
        built,
        "select is_mig, has_error, count(*), count(gpu_active_ratio), count(memory_used_bytes) "
        "from staging.stg_nvml__samples where gpu_uuid = ? group by all order by all",
        [node.A100_UUID],
    )
    # round 1: parent + 4 MIG rows readable; round 2: all five lost
    assert rows == [
        (False, False, 1, 0, 1),
        (False, True, 1, 0, 0),
        (True, False, 4, 0, 4),
        (True, True, 4, 0, 0),
    ]


def test_processes_keep_their_owners(built: Path) -> None:
    rows = sql(
        built,
        "select pid, owner_kind, pod_uid, slurm_job_id, sm_active_ratio "
        "from staging.stg_nvml__processes where sampled_at = (select min(sampled_at) "
        "from staging.stg_nvml__processes) order by pid",
    )
    assert rows == [
        (4242, "k8s_pod", node.POD_UID, None, 0.75),
        (5151, "slurm_job", None, "4824887", 0.1),
        (6000, "unresolved", None, None, None),
        (7000, "slurm_job", None, "1320003", None),
        (7100, "k8s_pod", node.POD2_UID, None, None),
    ]
    assert sql(built, "select count(*) from staging.stg_nvml__processes") == [(8,)]
