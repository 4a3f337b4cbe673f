"""The real sacct / Open XDMoD samples (tests/fixtures/real/) the Slurm parser tests read,
and their helpers."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from pathlib import Path

from extractors.records import ParseResult
from extractors.slurm.records import JOBS_TABLE, STEPS_TABLE, SlurmJob

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
TEXT_2205 = "slurm/slurm22.05_sacct_parsable2.txt"
JSON_2205 = "slurm/slurm22.05_sacct.json"
JSON_2108 = "slurm/clockwork_sacct_json_slurm21.08_dbv0.0.37.json"
MILA = "slurm/mila_clockwork_sacct_parsable_and_fixedwidth.txt"
XDMOD_LOG = "xdmod/shredder_input_accounting-logs.log"
XDMOD_EXPECTED = "xdmod/shredder_expected_output_accounting-logs_head.json"
XDMOD_ARRAYS = "xdmod/shredder_input_job-arrays_excerpt.log"
XDMOD_NON_ENDED = "xdmod/shredder_input_non-ended-job-state.log"
GPU_COUNT_CASES = "xdmod/slurm-resource-parser_alloc-tres-gpu-count.json"


def read(name: str) -> str:
    return (REAL / name).read_text(encoding="utf-8")


def jobs(result: ParseResult) -> list[SlurmJob]:
    return result.tables.get(JOBS_TABLE, [])  # type: ignore[return-value]


def steps(result: ParseResult) -> list[SlurmJob]:
    return result.tables.get(STEPS_TABLE, [])  # type: ignore[return-value]


def by_id(rows: list[SlurmJob]) -> dict[str, SlurmJob]:
    return {r.job_id: r for r in rows}


def gpu_seconds_by_account(rows: list[SlurmJob]) -> dict[str, float]:
    """GPU-seconds held: (end - start) x alloc_gpu_count, per account."""
    out: dict[str, float] = defaultdict(float)
    for r in rows:
        if r.start_at and r.end_at:
            out[r.account or ""] += (r.end_at - r.start_at).total_seconds() * r.alloc_gpu_count
    return {k: v for k, v in out.items() if v}


def data_lines(text: str, *, headers: tuple[int, ...] = ()) -> set[int]:
    return {n for n, ln in enumerate(text.split("\n"), 1) if ln.strip() and n not in headers}


def assert_nothing_lost(result: ParseResult, expected_lines: set[int]) -> None:
    """Every input line counted once and either landed (>= 1 row) or rejected, never both."""
    landed = {r.source_line for rows in result.tables.values() for r in rows}  # type: ignore[attr-defined]
    rejected = [r.line for r in result.rejected]
    assert len(rejected) == len(set(rejected))
    assert landed.isdisjoint(rejected)
    assert landed | set(rejected) == expected_lines
    assert result.records_read == len(expected_lines)


def epoch(value: dt.datetime | None) -> int | None:
    return None if value is None else int(value.replace(tzinfo=dt.UTC).timestamp())
