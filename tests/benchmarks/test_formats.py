"""The benchmark's generators write what the extractors read: every record of a 16-GPU
fleet's day lands through `gpuledger ingest` with nothing quarantined, the counts the
writers report are those the batches read, and the files are a function of the seed and the
day alone."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

import pyarrow.parquet as pq

from benchmarks.evidence import write_days
from benchmarks.fleet import FIRST_DAY, make_fleet
from benchmarks.formats.inventory import write_inventory
from benchmarks.formats.kubernetes import CLUSTER, write_pod_list, write_watch_start
from benchmarks.formats.prometheus import write_dcgm_scrapes
from tests.conftest import run_cli

DAY = FIRST_DAY
READ_AT = dt.datetime(2026, 11, 1)


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def _landed(home: Path) -> dict[str, tuple[int, int, int]]:
    """Per source: records read, landed and quarantined, from the batches' manifests."""
    totals: dict[str, tuple[int, int, int]] = {}
    for path in (home / "raw" / "batches").glob("*.parquet"):
        for row in pq.read_table(path).to_pylist():
            read, landed, held = totals.get(row["source"], (0, 0, 0))
            totals[row["source"]] = (
                read + row["records_read"],
                landed + row["records_landed"],
                held + row["records_quarantined"],
            )
    return totals


def test_every_generated_record_lands(tmp_path: Path) -> None:
    fleet = make_fleet(16, 8, seed=3)
    home, folder = tmp_path / "home", tmp_path / "files"
    folder.mkdir()
    inventory_rows = write_inventory(folder / "inventory.csv", fleet)
    listed = write_watch_start(folder / "list.json", fleet)
    files = write_days(folder / "day", fleet, [DAY])
    assert set(files.paths) == {"slurm", "kubernetes", "prometheus", "requests"}
    at_start, at_end = ["--extracted-at", DAY.isoformat()], ["--extracted-at", READ_AT.isoformat()]
    calls = [
        ("inventory", [folder / "inventory.csv"], at_start),
        ("kubernetes", [folder / "list.json"], at_start),
        *(
            (source, paths, [] if source == "kubernetes" else at_end)
            for source, paths in files.paths.items()
        ),
    ]
    for source, paths, options in calls:
        extra = ["--cluster", CLUSTER] if source == "kubernetes" else []
        result = run_cli(home, None, "ingest", source, "--file", *map(str, paths), *extra, *options)
        assert result.exit_code == 0, result.stderr
    landed = _landed(home)
    expected = {
        "inventory": inventory_rows,
        "kubernetes": listed + files.records["kubernetes"],
        **{s: files.records[s] for s in ("slurm", "prometheus", "requests")},
    }
    assert landed == {source: (n, n, 0) for source, n in expected.items()}
    assert files.records["prometheus"] > 16 * 1440 * 3  # every GPU's 3 DCGM series, and vLLM


def test_the_same_seed_writes_the_same_bytes_and_a_day_is_its_own(tmp_path: Path) -> None:
    fleet = make_fleet(32, 4, seed=5)
    second = DAY + dt.timedelta(days=1)
    write_days(tmp_path / "a", fleet, [DAY, second])
    write_days(tmp_path / "b", make_fleet(32, 4, seed=5), [DAY, second])
    write_days(tmp_path / "alone", fleet, [second])
    write_days(tmp_path / "other", make_fleet(32, 4, seed=6), [second])
    both = _digests(tmp_path / "a")
    assert both == _digests(tmp_path / "b")
    alone = _digests(tmp_path / "alone")
    assert alone == {name: digest for name, digest in both.items() if name in alone}
    assert len(alone) == len(both) / 2
    assert set(_digests(tmp_path / "other").values()).isdisjoint(alone.values())


def test_the_ingest_memory_files_land_whole(tmp_path: Path) -> None:
    """The files `benchmarks.ingest_memory` grows (a pod List as kubectl prints it, the
    fleet's hourly dcgm-exporter scrapes) are what the extractors read: every record lands."""
    fleet = make_fleet(16, 8, seed=3)
    home, folder = tmp_path / "home", tmp_path / "files"
    folder.mkdir()
    pods = write_pod_list(folder / "pods.json", fleet, [DAY])
    with (folder / "scrapes.prom").open("w", encoding="utf-8") as out:
        samples = write_dcgm_scrapes(out, fleet, DAY)
    listed = ["--extracted-at", READ_AT.isoformat(), "--cluster", CLUSTER]
    for source, path, options in (
        ("kubernetes", folder / "pods.json", listed),
        ("prometheus", folder / "scrapes.prom", []),
    ):
        result = run_cli(home, None, "ingest", source, "--file", str(path), *options)
        assert result.exit_code == 0, result.stderr
    assert _landed(home) == {"kubernetes": (pods, pods, 0), "prometheus": (samples, samples, 0)}
    assert samples == 16 * 3 * 24 and pods > 16
