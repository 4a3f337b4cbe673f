"""Evidence as real sites produce it, and honest exits: each case of the integrity issue on
the real samples (tests/fixtures/real), asserting what was read, landed and quarantined
(read = landed + quarantined: nothing lost) and the one line the ingest prints."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REAL_SLURM, run_cli, sql, write_inventory, write_policy
from tests.integrity.ingests import (
    batches_of,
    counts_of,
    manifest_of,
    prometheus_samples_of,
    quarantine_of,
    rows_of,
)
from tests.orchestration.conftest import BASE_POLICY

XDMOD = REAL_SLURM / "slurm22.05_sacct_xdmod_fields.txt"  # 26 fields, no header
TEXT_2205 = REAL_SLURM / "slurm22.05_sacct_parsable2.txt"  # header without Cluster
WATCH = FIXTURES / "kubernetes" / "watch-pods.jsonl"
WATCH_COUNTS = (9, 9, 0)  # 9 events, each landed
CLUSTER_LIST = FIXTURES / "kubernetes" / "kubectl-get-pods-namespaces-resourcequotas-nodes.json"
ISSUE_512 = (
    FIXTURES
    / "real"
    / "external"
    / "prometheus"
    / "dcgm-exporter-issue512_h100_mig-1g.10gb_pod-labels_excerpt.prom"
)
STARTED = dt.datetime(2026, 11, 29, 13, 0, 41)  # job 2's Start in the XDMoD-field capture
INVALID_UTF8 = (
    "invalid UTF-8 byte 0xff (give --encoding if the file is in another encoding, or "
    "--errors replace to land it with U+FFFD in place of each invalid byte)"
)


def ingest(home: Path, source: str, *args: str):
    return run_cli(home, None, "ingest", source, *args)


def running(elapsed: str) -> str:
    """The XDMoD-field capture with job 2 (2 GPUs) and its steps still running at Start +
    `elapsed`: End Unknown, as sacct prints a job it saw running."""
    lines = []
    for line in XDMOD.read_text().splitlines():
        fields = line.split("|")
        if fields[0].split(".")[0] == "2":
            fields[13], fields[14], fields[16] = "Unknown", elapsed, "RUNNING"
        lines.append("|".join(fields))
    return "\n".join(lines) + "\n"


# --- times ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def running_job(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Job 2 seen running 10 h (the file, and a copy of it dated a year later), built; then
    seen again running 20 h, built again."""
    tmp = tmp_path_factory.mktemp("running")
    home, policy = tmp / "home", write_policy(tmp / "policy", BASE_POLICY)
    inventory = write_inventory(tmp / "inventory.csv", {"gpunode01": 8})
    assert ingest(home, "inventory", "--file", str(inventory)).exit_code == 0
    first = tmp / "sacct-first.txt"
    first.write_text(running("10:00:00"))
    copy = tmp / "copy-of-first.txt"
    shutil.copyfile(first, copy)
    a_year_later = (STARTED + dt.timedelta(days=365) - dt.datetime(1970, 1, 1)).total_seconds()
    os.utime(copy, (a_year_later, a_year_later))
    outputs = {
        name: ingest(home, "slurm", "--file", str(path))
        for name, path in (("first", first), ("copy", copy))
    }
    assert run_cli(home, policy, "build").exit_code == 0
    hours = sql(
        home,
        "select sum(allocated_gpu_hours) from marts.fact_gpu_allocation "
        "where workload_id = 'slurm:ledgertest:2'",
    )
    later = tmp / "sacct-later.txt"
    later.write_text(running("20:00:00"))
    outputs["later"] = ingest(home, "slurm", "--file", str(later))
    assert run_cli(home, policy, "build").exit_code == 0
    return {"home": home, "first": first, "later": later, "outputs": outputs, "hours": hours}


def test_a_running_job_ends_at_start_plus_elapsed_not_the_file_mtime(running_job: dict) -> None:
    home, first = running_job["home"], running_job["first"]
    assert counts_of(home, first) == (26, 26, 0)
    (job,) = [r for r in rows_of(home, "slurm_jobs", first) if r["job_id"] == "2"]
    assert (job["end_at"], job["end_basis"]) == (None, "elapsed")
    assert job["provisional_end_at"] == STARTED + dt.timedelta(hours=10)
    manifest = manifest_of(home, first)
    assert (manifest["extracted_at"], manifest["extracted_at_basis"]) == (
        STARTED + dt.timedelta(hours=10),
        "sacct_elapsed",
    )
    # a copy dated a year later is the same evidence: the same batch, the same bill
    assert "already landed as batch" in running_job["outputs"]["copy"].stdout
    assert running_job["hours"] == [(20,)]  # 2 GPUs x 10 h, never until the copy's mtime


def test_a_later_extraction_supersedes_a_running_jobs_provisional_end(running_job: dict) -> None:
    home = running_job["home"]
    assert sql(
        home,
        "select provisional_end_at, end_basis, batch_id from staging.stg_slurm__jobs "
        "where job_id = '2'",
    ) == [
        (
            STARTED + dt.timedelta(hours=20),
            "elapsed",
            manifest_of(home, running_job["later"])["batch_id"],
        )
    ]
    assert sql(
        home,
        "select segment_end_at, is_open, allocated_gpu_hours from marts.fact_gpu_allocation "
        "where workload_id = 'slurm:ledgertest:2'",
    ) == [(STARTED + dt.timedelta(hours=20), True, 40)]


def test_covers_from_starts_the_coverage_at_the_sacct_window(tmp_path: Path, home: Path) -> None:
    """sacct -S 2026-11-01 run on 30 November: the batch covers the window from 1 November,
    not from its one record's submit time."""
    given = tmp_path / "sacct.txt"
    given.write_text(running("10:00:00"))
    window = ("--covers-from", "2026-11-01T00:00Z", "--extracted-at", "2026-11-30T00:00Z")
    result = ingest(home, "slurm", "--file", str(given), *window)
    assert result.exit_code == 0, result.stderr
    manifest = manifest_of(home, given)
    assert (
        manifest["coverage_start_at"],
        manifest["coverage_end_at"],
        manifest["coverage_basis"],
    ) == (dt.datetime(2026, 11, 1), dt.datetime(2026, 11, 30), "window_to_extraction")
    without = tmp_path / "plain.txt"
    without.write_text(running("11:00:00"))
    assert ingest(home, "slurm", "--file", str(without)).exit_code == 0
    assert manifest_of(home, without)["coverage_start_at"] > dt.datetime(2026, 11, 1)
    live_only = ingest(home, "slurm", "--live", "--cluster", "c", "--covers-from", "2026-11-01")
    assert live_only.exit_code != 0
    assert "--covers-from: only with --file" in live_only.stderr


def test_extracted_at_given_is_recorded_with_its_basis(tmp_path: Path, home: Path) -> None:
    given = tmp_path / "sacct.txt"
    given.write_text(running("10:00:00"))
    result = ingest(home, "slurm", "--file", str(given), "--extracted-at", "2026-11-30T00:00Z")
    assert result.exit_code == 0, result.stderr
    manifest = manifest_of(home, given)
    assert (manifest["extracted_at"], manifest["extracted_at_basis"]) == (
        dt.datetime(2026, 11, 30),
        "option",
    )
    ended = tmp_path / "ended.txt"
    shutil.copyfile(XDMOD, ended)
    assert ingest(home, "slurm", "--file", str(ended)).exit_code == 0
    # nothing runs: the latest time in the output, and the basis says so
    assert manifest_of(home, ended)["extracted_at_basis"] == "latest_evidence"


def test_a_kubernetes_list_without_extracted_at_is_refused(home: Path) -> None:
    refused = ingest(home, "kubernetes", "--file", str(CLUSTER_LIST))
    assert refused.exit_code == 1
    assert refused.stderr == (
        f"gpuledger: {CLUSTER_LIST}: a Kubernetes List carries no time: give --extracted-at "
        "(when kubectl listed it)\n"
    )
    assert not (home / "raw" / "batches").exists() or batches_of(home) == []
    listed = ingest(home, "kubernetes", "--file", str(CLUSTER_LIST), "--extracted-at", "2026-10-15")
    assert listed.exit_code == 0, listed.stderr
    assert counts_of(home, CLUSTER_LIST) == (22, 22, 0)
    rows = rows_of(home, "kubernetes_pod_allocations", CLUSTER_LIST)
    assert {r["observed_at"] for r in rows} == {dt.datetime(2026, 10, 15)}
    assert manifest_of(home, CLUSTER_LIST)["extracted_at_basis"] == "option"


def test_watch_events_date_themselves_by_their_own_times(home: Path) -> None:
    result = ingest(home, "kubernetes", "--file", str(WATCH))
    assert result.exit_code == 0, result.stderr
    assert counts_of(home, WATCH) == WATCH_COUNTS
    rows = rows_of(home, "kubernetes_pod_allocations", WATCH)
    seen = sorted({r["observed_at"] for r in rows})
    assert len(seen) > 1  # each event its own time, no longer the file's modification time
    manifest = manifest_of(home, WATCH)
    assert manifest["extracted_at_basis"] == "watch_events"
    assert manifest["extracted_at"] == seen[-1] == dt.datetime(2026, 10, 14, 13, 45, 1)


# --- inputs as real sites produce them --------------------------------------------------------


def test_a_utf8_bom_is_not_part_of_the_first_job_id(tmp_path: Path, home: Path) -> None:
    with_bom = tmp_path / "bom.txt"
    with_bom.write_bytes(b"\xef\xbb\xbf" + XDMOD.read_bytes())
    result = ingest(home, "slurm", "--file", str(with_bom))
    assert result.exit_code == 0, result.stderr
    assert counts_of(home, with_bom) == (26, 26, 0)
    first = min(rows_of(home, "slurm_jobs", with_bom), key=lambda r: r["source_line"])
    assert first["job_id"] == "2"  # not "\ufeff2", which would count job 2 twice


def test_a_header_in_another_delimiter_is_detected_never_quarantined(
    tmp_path: Path, home: Path
) -> None:
    snowman = tmp_path / "snowman.txt"
    snowman.write_text(TEXT_2205.read_text().replace("|", "☃"))
    result = ingest(home, "slurm", "--cluster", "probe", "--file", str(snowman))
    assert result.exit_code == 0, result.stderr
    assert counts_of(home, snowman) == (26, 26, 0)  # the header is no record
    assert len(rows_of(home, "slurm_jobs", snowman)) == 8
    other = ingest(home, "slurm", "--cluster", "probe", "--delimiter", ";", "--file", str(snowman))
    assert other.exit_code == 1
    assert other.stderr == (
        f"gpuledger: {snowman}: line 1: a sacct header delimited by '☃', not --delimiter ';'\n"
    )


def test_headerless_output_in_another_delimiter_lands_with_delimiter(
    tmp_path: Path, home: Path
) -> None:
    semicolons = tmp_path / "semicolons.txt"
    semicolons.write_text(XDMOD.read_text().replace("|", ";"))
    refused = ingest(home, "slurm", "--file", str(semicolons))
    assert refused.exit_code == 1  # every record quarantined: exit 1, and it says so
    assert counts_of(home, semicolons) == (26, 0, 26)
    assert f"gpuledger: {semicolons} landed no record\n" in refused.stderr
    assert (
        f"quarantined {semicolons}:1: field line: no '|' in the line, but ';' splits it into "
        "26 fields: give --delimiter ';'" in refused.stdout
    )
    landed = ingest(home, "slurm", "--delimiter", ";", "--file", str(semicolons))
    assert landed.exit_code == 0, landed.stderr
    assert "read 26, landed 26, quarantined 0" in landed.stdout


def test_an_invalid_byte_is_named_by_line_and_field(tmp_path: Path, home: Path) -> None:
    lines = XDMOD.read_bytes().split(b"\n")
    lines[3] = lines[3].replace(b"|h100", b"|h\xff100")  # job 3's JobName, line 4
    latin = tmp_path / "latin1.txt"
    latin.write_bytes(b"\n".join(lines))
    strict = ingest(home, "slurm", "--file", str(latin))
    assert strict.exit_code == 1
    assert strict.stderr == f"gpuledger: {latin}:4: field JobName: {INVALID_UTF8}\n"
    replaced = ingest(home, "slurm", "--errors", "replace", "--file", str(latin))
    assert replaced.exit_code == 0, replaced.stderr
    assert counts_of(home, latin) == (26, 26, 0)
    assert f"warning: {latin}:4: field JobName: invalid UTF-8 byte 0xff (and any other)" in (
        replaced.stdout
    )
    (job,) = [r for r in rows_of(home, "slurm_jobs", latin) if r["job_id"] == "3"]
    assert job["job_name"] == "h\ufffd100"
    assert manifest_of(home, latin)["options"].endswith(";encoding=utf-8;errors=replace")
    as_latin1 = ingest(home, "slurm", "--encoding", "latin-1", "--file", str(latin))
    assert as_latin1.exit_code == 0, as_latin1.stderr
    assert len({b["batch_id"] for b in batches_of(home)}) == 2  # another reading, another batch


def test_a_header_without_cluster_needs_cluster(home: Path) -> None:
    refused = ingest(home, "slurm", "--file", str(TEXT_2205))
    assert refused.exit_code == 1
    assert refused.stderr == (
        f"gpuledger: {TEXT_2205}: line 1: the sacct header has no Cluster column: give "
        "--cluster NAME (the cluster these jobs ran on)\n"
    )
    assert not (home / "raw" / "batches").exists() or batches_of(home) == []
    named = ingest(home, "slurm", "--cluster", "probe", "--file", str(TEXT_2205))
    assert named.exit_code == 0, named.stderr
    assert counts_of(home, TEXT_2205) == (26, 26, 0)
    assert {r["cluster"] for r in rows_of(home, "slurm_jobs", TEXT_2205)} == {"probe"}


def test_legacy_gres_columns_count_gpus_with_a_warning(tmp_path: Path, home: Path) -> None:
    # sacct of Slurm < 19.05: AllocGRES (`gpu:tesla:2(IDX:0-1)`) where AllocTRES came later
    header = tmp_path / "allocgres.txt"
    header.write_text(
        "JobID|Cluster|Account|Start|End|AllocGRES|ReqGRES\n"
        "41|old|atlas|2018-03-01T10:00:00|2018-03-01T12:00:00|gpu:tesla:2(IDX:0-1)|gpu:2\n"
        "42|old|atlas|2018-03-01T10:00:00|2018-03-01T11:00:00||\n"
    )
    result = ingest(home, "slurm", "--file", str(header))
    assert result.exit_code == 0, result.stderr
    assert counts_of(home, header) == (2, 2, 0)
    jobs = {r["job_id"]: r for r in rows_of(home, "slurm_jobs", header)}
    assert (jobs["41"]["alloc_gpu_count"], jobs["41"]["req_gpu_count"]) == (2, 2)
    assert (jobs["41"]["gpu_type"], jobs["42"]["alloc_gpu_count"]) == ("tesla", 0)
    assert (
        "warning: 1 job(s) count their GPUs from the legacy AllocGRES column only (lines 2)"
        in result.stdout
    )
    # Open XDMoD's earlier 25 fields: no QOS, ReqGRES, no AllocTRES (a started job's GPUs)
    xdmod25 = tmp_path / "xdmod25.txt"
    fields = XDMOD.read_text().splitlines()[0].split("|")
    del fields[22], fields[4]  # AllocTRES, QOS
    fields.insert(20, "gpu:2")  # ReqGRES, before ReqTRES
    xdmod25.write_text("|".join(fields) + "\n")
    legacy = ingest(home, "slurm", "--file", str(xdmod25))
    assert legacy.exit_code == 0, legacy.stderr
    assert counts_of(home, xdmod25) == (1, 1, 0)
    (job,) = rows_of(home, "slurm_jobs", xdmod25)
    assert (job["job_id"], job["account"], job["alloc_gpu_count"], job["qos"]) == (
        "2",
        "atlas",
        2,
        None,
    )
    assert "from the legacy ReqGRES column only (lines 1)" in legacy.stdout


def test_steps_of_a_job_landed_before_are_no_orphans(tmp_path: Path, home: Path) -> None:
    lines = XDMOD.read_text().splitlines()
    job, steps, strays = tmp_path / "job.txt", tmp_path / "steps.txt", tmp_path / "strays.txt"
    job.write_text(lines[0] + "\n")  # job 2
    steps.write_text("\n".join(lines[1:3]) + "\n")  # 2.batch, 2.extern
    strays.write_text("\n".join(line.replace("2.", "99.", 2) for line in lines[1:3]) + "\n")
    assert ingest(home, "slurm", "--file", str(job)).exit_code == 0
    assert ingest(home, "slurm", "--file", str(steps)).exit_code == 0
    assert counts_of(home, steps) == (2, 2, 0)
    orphans = ingest(home, "slurm", "--file", str(strays))
    assert orphans.exit_code == 1  # nothing of it landed
    assert counts_of(home, strays) == (2, 0, 2)
    assert [(q["line"], q["field"]) for q in quarantine_of(home, strays)] == [
        (1, "JobID"),
        (2, "JobID"),
    ]
    assert (
        "warning: 2 step(s) without their job quarantined: 99.batch (line 1), 99.extern (line 2)"
        in orphans.stdout
    )


def test_a_scrape_cut_mid_line_quarantines_its_last_line(tmp_path: Path, home: Path) -> None:
    cut = tmp_path / "cut.prom"
    cut.write_text(ISSUE_512.read_text() + 'DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="0",UUID="GPU-58e8')
    result = ingest(home, "prometheus", "--file", str(cut), "--scrape-time", "2025-08-19T00:00Z")
    assert result.exit_code == 0, result.stderr
    assert counts_of(home, cut) == (4, 3, 1)
    (row,) = quarantine_of(home, cut)
    assert (row["line"], row["field"]) == (6, "line")
    assert row["reason"].endswith("; the file stops in the middle of this line")


def test_exposition_samples_with_timestamps_need_no_scrape_time(tmp_path: Path, home: Path) -> None:
    stamped = tmp_path / "stamped.prom"
    lines = ISSUE_512.read_text().splitlines()
    stamped.write_text(
        "".join(
            f"{line} 1755561600000\n" if line.startswith("DCGM") else f"{line}\n" for line in lines
        )
    )
    result = ingest(home, "prometheus", "--file", str(stamped))
    assert result.exit_code == 0, result.stderr
    assert counts_of(home, stamped) == (3, 3, 0)
    times = {r["sampled_at"] for r in prometheus_samples_of(home, stamped, {"dcgm"})}
    assert times == {dt.datetime(2025, 8, 19)}


# --- honest exits ---------------------------------------------------------------------------


def test_a_file_whose_every_record_is_quarantined_exits_1(tmp_path: Path, home: Path) -> None:
    lines = XDMOD.read_text().splitlines()
    bad = tmp_path / "bad.txt"
    bad.write_text(lines[0].replace("|COMPLETED|", "|COMPLETED|x|") + "\n")
    result = ingest(home, "slurm", "--file", str(bad))
    assert result.exit_code == 1
    assert counts_of(home, bad) == (1, 0, 1)
    assert f"{bad}: read 1, landed 0, quarantined 1" in result.stdout
    assert result.stderr == f"gpuledger: {bad} landed no record\n"


def test_an_empty_file_is_no_records_and_lands_nothing(tmp_path: Path, home: Path) -> None:
    empty, header_only = tmp_path / "empty.txt", tmp_path / "header.txt"
    empty.write_text("")
    header_only.write_text(TEXT_2205.read_text().splitlines()[0] + "\n")
    result = ingest(home, "slurm", "--cluster", "c", "--file", str(empty), str(header_only))
    assert result.exit_code == 1
    assert result.stderr == (
        f"gpuledger: {empty}: no records (the file is empty); nothing landed\n"
        f"gpuledger: {header_only}: no records (nothing but headers or blank lines); "
        "nothing landed\n"
    )
    assert not (home / "raw" / "batches").exists() or batches_of(home) == []


def test_one_bad_file_does_not_hide_the_others(tmp_path: Path, home: Path) -> None:
    good, later = tmp_path / "good.txt", tmp_path / "later.txt"
    good.write_text("\n".join(XDMOD.read_text().splitlines()[:3]) + "\n")
    later.write_text("\n".join(XDMOD.read_text().splitlines()[3:]) + "\n")
    missing, unreadable = tmp_path / "missing.txt", tmp_path / "unreadable.txt"
    unreadable.write_bytes(b"\xff\n")
    files = [good, missing, unreadable, later]
    result = ingest(home, "slurm", "--file", *map(str, files))
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith(f"{good}: read 3, landed 3, quarantined 0")
    assert f"{later}: read 23, landed 23, quarantined 0" in result.stdout
    assert result.stdout.splitlines()[-1] == (
        "total: read 26, landed 26, quarantined 0; 2 of 4 files not landed"
    )
    assert result.stderr.splitlines() == [
        f"gpuledger: {missing}: cannot read: No such file or directory",
        f"gpuledger: {unreadable}:1: field JobID: {INVALID_UTF8}",
    ]
    assert counts_of(home, good) == (3, 3, 0) and counts_of(home, later) == (23, 23, 0)
    assert "Traceback" not in result.stdout + result.stderr


def test_a_bad_kubernetes_event_among_good_ones_is_quarantined_not_fatal(
    tmp_path: Path, home: Path
) -> None:
    events = WATCH.read_text().splitlines()
    broken = json.loads(events[0])
    broken["object"]["metadata"] = {"uid": "no-times", "name": "x", "namespace": "y"}
    broken["object"].pop("status", None)
    path = tmp_path / "watch.jsonl"
    path.write_text("\n".join([json.dumps(broken), *events]) + "\n")
    result = ingest(home, "kubernetes", "--file", str(path))
    assert result.exit_code == 0, result.stderr
    read, _, held = counts_of(home, path)
    assert (read, held) == (len(events) + 1, 1)
    (row,) = quarantine_of(home, path)
    assert (row["line"], row["field"]) == (1, "object")
    assert "carries no time" in row["reason"] and "give --extracted-at" in row["reason"]
