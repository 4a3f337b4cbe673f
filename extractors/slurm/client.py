"""Slurm accounting into the landing zone: from sacct output files, or live from sacct."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import os
import shlex
import subprocess
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from extractors.ahead import ahead
from extractors.filebatch import (
    DEFAULT_READ,
    ReadOptions,
    SourceFileError,
    invalid_byte,
    land_file,
)
from extractors.jsonmembers import ArrayMemberReader, NotStreamed
from extractors.landing import BatchWriter, LandingReport, land
from extractors.rawstore import BATCHES_TABLE, batch_files, raw_dir
from extractors.records import ParseResult, to_table
from extractors.slurm.parse import (
    date_extraction,
    parse_sacct_json,
    parse_sacct_text,
    slurm_field_at,
)
from extractors.slurm.record import EXTRACTED_AT_BASIS, with_run_end
from extractors.slurm.records import JOBS_TABLE, RAW_TABLES, STEPS_TABLE
from extractors.slurm.sacct_json import land_job
from extractors.slurm.steps import (
    StepsAfterJobs,
    job_keys,
    key_array,
    quarantine_orphan_steps,
    step_job_keys,
)
from extractors.slurm.stream import SacctStream
from extractors.slurm.windows import (
    check_cluster_name,
    floor_seconds,
    iso,
    next_watermark,
    plan_windows,
    sacct_argv,
    sacct_env,
)
from extractors.state import Cursor, Stream
from extractors.textfile import Survey, first_character, survey, surveyed_batch, text_pieces
from extractors.timeparse import parse_timestamp

SACCT_TIMEOUT_SECONDS = 1800
READ_THREADS = 2  # chunks read column-wise at once (a core each; the writer shares them)
# The end of the last landed live window of a cluster, naive UTC (see `watermark`).
WATERMARK = Cursor(
    source="slurm",
    key="watermark",
    decode=parse_timestamp,
    encode=iso,
    what="watermark",
    remedy="; fix or remove it, or pass --since",
)


class SlurmLiveError(SourceFileError):
    """A live run cannot go on (sacct missing or failing, no start point): a message, no trace."""


def ingest_file(
    home: Path,
    path: Path,
    *,
    cluster: str | None = None,
    timezone: str = "UTC",
    delimiter: str | None = None,
    read: ReadOptions = DEFAULT_READ,
    surveyed: Callable[..., Survey] = survey,
) -> LandingReport:
    """Land a `sacct --parsable2` or `sacct --json` file (detected by its first character).

    Text is read piece by piece (extractors.textfile) and parsed chunk by chunk
    (extractors.slurm.stream), so memory does not grow with the file; JSON a `jobs` entry at
    a time (`land_json`), else, when it is not read so, whole.
    `surveyed` surveys the text (its batch id; extractors.textfile.SurveysAhead makes the
    next file's while this one lands)."""
    options = f"cluster={cluster or ''};timezone={timezone}"
    options += f";delimiter={delimiter}" if delimiter is not None else ""
    if _is_json(path, read):
        try:
            return land_json(
                home, path, cluster=cluster, options=options, read=read, surveyed=surveyed
            )
        except NotStreamed:
            pass  # read whole: the same batch, or the error that says what is wrong with it
        return land_file(
            home,
            path,
            source="slurm",
            parse=lambda text: with_orphan_steps(home, parse_sacct_json(text, cluster=cluster)),
            row_types=RAW_TABLES,
            options=options,
            read=read,
            field_at=slurm_field_at(delimiter),
        )
    reading = {"cluster": cluster, "timezone": timezone, "delimiter": delimiter}
    try:
        stream = SacctStream(**reading)
    except ValueError as exc:
        raise SourceFileError(f"{path}: {exc}") from None
    found = surveyed(path, read, source="slurm", options=options + read.fingerprint())
    if found.bad_place is not None and read.errors == "strict":
        field = _field_at(path, read, found.bad_place, reading)
        invalid_byte(str(path), read, found.bad_place, found.bad_byte or 0, field)
    stream.locate = found.bad_place
    batch_options = options + read.fingerprint()
    with surveyed_batch(home, path, found, "slurm", batch_options, RAW_TABLES, read) as batch:
        if batch.existing is not None:
            return batch.already_landed()
        try:
            warnings = land_text(home, batch, text_pieces(path, read), stream)
        except SourceFileError:
            raise
        except ValueError as exc:
            raise SourceFileError(f"{path}: {exc}") from None
        if stream.records_read == 0:
            what = "nothing but headers or blank lines" if stream.has_text else "the file is empty"
            raise SourceFileError(f"{path}: no records ({what}); nothing landed")
        if found.bad_place is not None:
            field = stream.located or None
            warnings.append(
                invalid_byte(str(path), read, found.bad_place, found.bad_byte or 0, field)
            )
        return batch.finish(
            stream.records_read,
            stated_extraction=stream.extracted_at,
            stated_basis=stream.extracted_at_basis,
            warnings=warnings,
        )


def land_text(
    home: Path, batch: BatchWriter, pieces: Iterable[tuple[str, bool]], stream: SacctStream
) -> list[str]:
    """Parse sacct text piece by piece (each whole lines, the last flagged) into the batch;
    the warnings about what landed (GPU counts from legacy columns, orphan steps)."""
    rows = StepsAfterJobs(batch, lambda keys: landed_jobs(home, keys))
    # The chunks after this one are split into records (extractors.ahead: in a thread) and
    # read column-wise (by the pool's threads, two at a time) while this one is written.
    with ThreadPoolExecutor(READ_THREADS, thread_name_prefix="sacct-read") as pool:
        for given in ahead(stream.submit(text, final=last, pool=pool) for text, last in pieces):
            chunk = given()
            rows.write(chunk.jobs, chunk.steps)
            batch.reject(chunk.rejected)
    orphans = rows.finish()
    return [*stream.warnings, *orphans]


def land_json(
    home: Path,
    path: Path,
    *,
    cluster: str | None,
    options: str,
    read: ReadOptions,
    surveyed: Callable[..., Survey] = survey,
) -> LandingReport:
    """Land a `sacct --json` file read piece by piece: its `jobs` entries decoded one at a
    time (extractors.jsonmembers) and written JSON_CHUNK_JOBS at a time, so memory holds a
    piece and a chunk's rows, not the document (Slurm 22.05 writes about 17 KiB a job). The
    batch is the one `parse_sacct_json` gives reading it whole. Raises NotStreamed, having
    landed nothing, for a file that is not read so (not one object with a `jobs` list of
    valid JSON, an invalid byte): the caller reads it whole, which says what is wrong."""
    batch_options = options + read.fingerprint()
    found = surveyed(path, read, source="slurm", options=batch_options)
    if found.bad_place is not None:
        raise NotStreamed("an invalid byte")
    reader, index, latest = ArrayMemberReader("jobs"), 0, None
    with surveyed_batch(home, path, found, "slurm", batch_options, RAW_TABLES, read) as batch:
        if batch.existing is not None:
            return batch.already_landed()
        rows, records = StepsAfterJobs(batch, lambda keys: landed_jobs(home, keys)), 0
        chunk = ParseResult()
        for text, last in text_pieces(path, read):
            for job in reader.feed(text, last):
                index += 1
                land_job(chunk, job, index, cluster)
                if index % JSON_CHUNK_JOBS == 0:
                    latest = _write_json_chunk(rows, batch, chunk, latest)
                    records, chunk = records + chunk.records_read, ParseResult()
        latest = _write_json_chunk(rows, batch, chunk, latest)
        records += chunk.records_read
        orphans = rows.finish()
        if records == 0:
            raise NotStreamed("no jobs")  # read whole: refused as a file with no records
        return batch.finish(
            records,
            stated_extraction=latest,
            stated_basis=EXTRACTED_AT_BASIS if latest is not None else None,
            warnings=orphans,
        )


# jobs of a `sacct --json` file written to its batch at a time
JSON_CHUNK_JOBS = 2000


def _write_json_chunk(
    rows: StepsAfterJobs, batch: BatchWriter, chunk: ParseResult, latest: dt.datetime | None
) -> dt.datetime | None:
    """Write a chunk's job and step rows (with their run ends) and rejects; the extraction
    instant so far (`date_extraction`: the latest provisional end)."""
    for table in (JOBS_TABLE, STEPS_TABLE):
        chunk.tables[table] = [with_run_end(row) for row in chunk.tables.get(table, [])]  # type: ignore[arg-type]
    rows.write(
        to_table(RAW_TABLES[JOBS_TABLE], chunk.tables[JOBS_TABLE]),
        to_table(RAW_TABLES[STEPS_TABLE], chunk.tables[STEPS_TABLE]),
    )
    batch.reject(chunk.rejected)
    date_extraction(chunk)
    found = [end for end in (latest, chunk.extracted_at) if end is not None]
    return max(found) if found else None


def _is_json(path: Path, read: ReadOptions) -> bool:
    """Whether the file's first character that is not white space is `{`."""
    return first_character(path, read) == "{"


def _field_at(
    path: Path, read: ReadOptions, place: tuple[int, int], reading: dict[str, str | None]
) -> str | None:
    """The sacct field at `place` (line, column) of the file read with invalid bytes replaced;
    None when the text cannot be read that far."""
    locating = SacctStream(**{**reading, "cluster": reading["cluster"] or "-"}, locate=place)
    try:
        for text, last in text_pieces(path, dataclasses.replace(read, errors="replace")):
            locating.feed(text, final=last)
            if locating.located is not None:
                break
    except ValueError:
        return None
    return locating.located or None


def with_orphan_steps(home: Path, result: ParseResult) -> ParseResult:
    """The result with its orphan steps (job neither in it nor landed before) quarantined."""
    missing = step_job_keys(result)
    if missing:
        quarantine_orphan_steps(result, landed_jobs(home, missing))
    return result


def landed_jobs(home: Path, keys: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Those of `keys` (cluster, job_id) that a landed batch holds a job row of (no batch
    is read for no keys; each batch's keys are matched in Arrow, only its matches become
    Python values)."""
    if not keys:
        return set()
    wanted = key_array(keys)
    manifested = {p.stem for p in batch_files(raw_dir(home) / BATCHES_TABLE)}
    found: set[tuple[str, str]] = set()
    for path in batch_files(raw_dir(home) / JOBS_TABLE):
        if path.stem not in manifested:
            continue
        rows = pq.read_table(path, columns=["cluster", "job_id"])
        matches = rows.filter(pc.is_in(job_keys(rows), value_set=wanted)).to_pylist()
        found.update((r["cluster"], r["job_id"]) for r in matches)
    return found


def _print(line: str) -> None:
    print(line, flush=True)


def ingest_live(
    home: Path,
    *,
    cluster: str,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    window_hours: int = 24,
    sacct: str = "sacct",
    now: dt.datetime | None = None,
    progress: Callable[[str], None] = _print,
) -> list[LandingReport]:
    """Run sacct window by window (see extractors/slurm/windows.py) and land each window.

    Times are naive UTC. `since` defaults to the cluster's watermark (an error when there is
    none yet), `until` to `now` (and is never later). After each window lands, the watermark
    `<home>/state/slurm/<cluster>.json` moves to the window's end, but never past `now - LAG`;
    a run that stops half-way resumes from there. sacct output that is not UTF-8 (a job name
    in Latin-1) is read with U+FFFD in place of the bad bytes; the batch id hashes the raw bytes.
    """
    try:
        check_cluster_name(cluster)
    except ValueError as err:
        raise SlurmLiveError(str(err)) from None
    now = floor_seconds(now or _utcnow())
    until = floor_seconds(min(until or now, now))
    state = watermark(home, cluster)
    if since is None:
        since = state.load()
        if since is None:
            raise SlurmLiveError(
                f"no watermark for cluster {cluster} yet ({state.path}): "
                "give --since for its first live run"
            )
    since = floor_seconds(since)
    windows = plan_windows(since, until, window_hours)
    if not windows:
        progress(f"cluster {cluster}: nothing to ingest from {iso(since)} to {iso(until)}")
        return []
    reports = []
    for index, window in enumerate(windows, start=1):
        extracted_at = _utcnow()
        content = _run_sacct(sacct_argv(sacct, cluster, window), window.label())
        text = content.decode("utf-8", errors="replace")
        result = with_orphan_steps(home, parse_sacct_text(text, cluster=cluster, timezone="UTC"))
        report = land(
            home,
            source="slurm",
            file=f"sacct:{cluster}:{window.label()}",
            content=content,
            options=window.options(cluster),
            result=result,
            row_types=RAW_TABLES,
            extracted_at=extracted_at,
            extracted_at_basis="live_clock",
        )
        state.advance(functools.partial(next_watermark, window_end=window.end, now=now))
        progress(
            f"window {index}/{len(windows)} {window.label()}: read {report.records_read}, "
            f"landed {report.records_landed}, quarantined {report.records_quarantined}"
            + (" (already landed)" if report.already_landed else "")
        )
        reports.append(report)
    if not any(r.records_read for r in reports):
        progress(
            f"warning: sacct reported no records for cluster {cluster} from {iso(since)} to "
            f"{iso(until)}; if that is unexpected, check the name (sacctmgr show cluster)"
        )
    return reports


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def _run_sacct(argv: list[str], label: str) -> bytes:
    command = shlex.join(argv)
    try:
        completed = subprocess.run(
            argv,
            capture_output=True,
            env=sacct_env(dict(os.environ)),
            timeout=SACCT_TIMEOUT_SECONDS,
            check=False,
        )
    except FileNotFoundError:
        raise SlurmLiveError(
            f"sacct not found: {argv[0]!r} (install slurm-client, or pass --sacct PATH)"
        ) from None
    except OSError as err:
        raise SlurmLiveError(f"sacct cannot be run: {argv[0]!r}: {err.strerror}") from None
    except subprocess.TimeoutExpired:
        raise SlurmLiveError(
            f"window {label}: sacct did not answer within {SACCT_TIMEOUT_SECONDS} s: {command}"
        ) from None
    if completed.returncode != 0:
        detail = completed.stderr.decode("utf-8", errors="replace").strip().splitlines()
        reason = detail[-1] if detail else "no message"
        raise SlurmLiveError(
            f"window {label}: sacct exited with status {completed.returncode}: {reason} "
            f"(command: {command})"
        )
    return completed.stdout


def watermark(home: Path, cluster: str) -> Stream[dt.datetime]:
    """`<home>/state/slurm/<cluster>.json` (`cluster` is a name `check_cluster_name` accepted)."""
    return WATERMARK.stream(home, cluster, cluster=cluster)
