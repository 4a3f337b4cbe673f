"""extractors.slurm.values: the GPU count rule of TRES lists, durations and hostlists."""

from __future__ import annotations

import json

import pytest

from extractors.slurm.values import (
    expand_hostlist,
    gpu_tres,
    gres_gpus,
    parse_duration_seconds,
    parse_tres,
    tres_gpu_count,
)
from tests.extractors.slurm_samples import GPU_COUNT_CASES, read

# --- TRES / GPU count ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gres", "count", "gpu_type", "mig"),
    [
        ("gpu:2", 2, None, None),
        ("gpu:p100:2(IDX:0-1),hbm:0", 2, "p100", None),  # XDMoD's SlurmGresParser example
        ("gpu", 1, None, None),  # a count left out is 1, as Slurm reads --gres=gpu
        ("gpu:tesla", 1, "tesla", None),
        ("gpu:k80:2,gpu:p100:1", 3, "k80", None),
        ("gpu:a100_3g.20gb:1", 1, "a100_3g.20gb", "3g.20gb"),
        ("gres/gpu:2", 2, None, None),
        ("bandwidth:1G,mps:100", 0, None, None),
        ("", 0, None, None),
    ],
)
def test_legacy_gres_gpu_counts(gres: str, count: int, gpu_type: str | None, mig: str | None):
    found = gres_gpus(gres)
    assert (found.count, found.gpu_type, found.mig_profile) == (count, gpu_type, mig)


@pytest.mark.parametrize(("tres", "expected"), json.loads(read(GPU_COUNT_CASES)))
def test_xdmod_alloc_tres_gpu_count_cases(tres: str, expected: int) -> None:
    assert tres_gpu_count(tres) == expected


@pytest.mark.parametrize(
    ("tres", "count", "gpu_type", "mig"),
    [
        ("billing=1,cpu=1,gres/gpu:h100=2,gres/gpu=2,mem=1000M,node=1", 2, "h100", None),
        ("gres/gpu=2,gres/gpu:h100=2", 2, "h100", None),
        ("gres/gpu:a100=1,gres/gpu:v100=2", 3, "a100", None),
        ("gres/gpu:a100_3g.20gb=1,gres/gpu=1", 1, "a100_3g.20gb", "3g.20gb"),
        ("gres/gpu:1g.10gb=2", 2, "1g.10gb", "1g.10gb"),
        ("gres/gpu:nvidia_h100_1g.10gb+me=1", 1, "nvidia_h100_1g.10gb+me", "1g.10gb+me"),
        ("gres/gpu:volta=2,mem=125G,node=1", 2, "volta", None),
        ("gres/gpumem=40G,gres/gpu=1,gres/mps=100", 1, None, None),
        ("", 0, None, None),
    ],
)
def test_gpu_rule(tres: str, count: int, gpu_type: str | None, mig: str | None) -> None:
    got = gpu_tres(parse_tres(tres))
    assert (got.count, got.gpu_type, got.mig_profile) == (count, gpu_type, mig)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("00:00:05", 5),
        ("2-22:03:04", 252184),
        ("3-00:00:00", 259200),
        ("14:20:00", 51600),
        ("05:30", 330),
        ("01:02:03.456", 3723),
        ("UNLIMITED", None),
        ("Partition_Limit", None),
        ("", None),
    ],
)
def test_durations(text: str, seconds: int | None) -> None:
    assert parse_duration_seconds(text) == seconds


@pytest.mark.parametrize(
    ("expr", "hosts"),
    [
        ("gpu[01-04]", ["gpu01", "gpu02", "gpu03", "gpu04"]),
        (
            "d09n04s[01-02],d13n[03,05,07-08,16]",
            ["d09n04s01", "d09n04s02", "d13n03", "d13n05", "d13n07", "d13n08", "d13n16"],
        ),
        ("cpn-k16-35-01,cpn-k16-37-01", ["cpn-k16-35-01", "cpn-k16-37-01"]),
        ("rack[1-2]-n[1,3]", ["rack1-n1", "rack1-n3", "rack2-n1", "rack2-n3"]),
        ("gpunode01", ["gpunode01"]),
        ("None assigned", []),
    ],
)
def test_expand_hostlist(expr: str, hosts: list[str]) -> None:
    assert expand_hostlist(expr) == hosts


@pytest.mark.parametrize("expr", ["gpu[01-", "gpu[a-b]", "gpu[3-1]", "a,,b", "gpu]1["])
def test_expand_hostlist_rejects_malformed(expr: str) -> None:
    with pytest.raises(ValueError):
        expand_hostlist(expr)
