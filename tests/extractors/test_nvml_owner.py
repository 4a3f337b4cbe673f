"""Process owners from real /proc/<pid>/cgroup samples: Kubernetes pods and Slurm jobs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from extractors.nvml.owner import Owner, owner_from_cgroup, read_owner
from tests.conftest import FIXTURES

REAL = FIXTURES / "nvml" / "real-cgroup"
ELASTIC = json.loads((REAL / "elastic-apm_cgroup_parsing.json").read_text())


@pytest.mark.parametrize(
    ("file", "expected"),
    [
        (
            "ceems_proc_46231_cgroup",
            Owner("/slurm/uid_1000/job_4824887", "slurm_job", slurm_job_id="4824887"),
        ),
        (
            "ceems_proc_46235_cgroup",
            Owner(
                "/system.slice/slurmstepd.scope/job_1320003/step_0/user/task_0",
                "slurm_job",
                slurm_job_id="1320003",
                slurm_step_id="0",
            ),
        ),
        (
            "container-info_cgroup",
            Owner(
                "/kubepods/besteffort/pod74c13223-5a00-11e9-b385-42010a80018d/"
                "34dc0b5e626f2c5c4c5170e34b10e7654ce36f0fcd532739f4445baabea03376",
                "k8s_pod",
                pod_uid="74c13223-5a00-11e9-b385-42010a80018d",
                container_id="34dc0b5e626f2c5c4c5170e34b10e7654ce36f0fcd532739f4445baabea03376",
            ),
        ),
    ],
)
def test_real_cgroup_files(file: str, expected: Owner) -> None:
    assert owner_from_cgroup((REAL / file).read_text()) == expected


@pytest.mark.parametrize("case", sorted(ELASTIC))
def test_real_cgroup_lines(case: str) -> None:
    spec = ELASTIC[case]
    owner = owner_from_cgroup(spec["groupLine"])
    assert owner.pod_uid == spec["podId"]
    if spec["podId"] is None:
        # not a pod (a desktop session, an ECS task): the path is kept, no owner is guessed
        assert owner.kind == "other"
        assert owner.container_id is None
    else:
        assert owner.kind == "k8s_pod"
        assert owner.container_id == spec["containerId"]


def test_the_unified_line_wins_over_the_legacy_ones() -> None:
    text = "1:name=systemd:/user.slice/session-3.scope\n0::/slurm/uid_5/job_77/step_extern\n"
    owner = owner_from_cgroup(text)
    assert (owner.kind, owner.slurm_job_id, owner.slurm_step_id) == ("slurm_job", "77", "extern")


def test_guaranteed_pod_and_cri_containerd_scope() -> None:
    uid = "d5e3a8f0-4d51-4b0e-8e3d-2a1c4f5a8b9c"
    container = "ab" * 32
    pod = f"kubepods-pod{uid.replace('-', '_')}.slice"
    line = f"0::/kubepods.slice/{pod}/cri-containerd-{container}.scope"
    owner = owner_from_cgroup(line)
    assert (owner.kind, owner.pod_uid, owner.container_id) == ("k8s_pod", uid, container)


@pytest.mark.parametrize(
    ("text", "kind"),
    [("", "unresolved"), ("garbage without colons\n", "unresolved"), ("0::/init.scope\n", "other")],
)
def test_nothing_to_resolve(text: str, kind: str) -> None:
    owner = owner_from_cgroup(text)
    assert owner.kind == kind
    assert owner.pod_uid is None and owner.slurm_job_id is None


def test_a_process_without_a_cgroup_file_is_unresolved_with_the_reason(tmp_path: Path) -> None:
    owner = read_owner(tmp_path, 31337)
    assert owner.kind == "unresolved"
    assert "<proc-root>/31337/cgroup" in owner.error
    assert "--proc-root" in owner.error
