"""The live loop of a sampling source (nvml, vgpu): sample, spool, land, recover after a crash.

Every round's records are appended to a spool chunk under `<home>/state/<source>/spool/`
(flushed each round). Every `flush_every` rounds, and when the run ends or is interrupted,
the chunk is landed through the landing writer and then deleted: the spool directory is the
state. A run that crashed leaves its chunk behind; the next run lands it first (landing is
idempotent, so a chunk landed just before a crash lands as a no-op) and so nothing is sampled
twice or lost. `--output PATH` also appends every record to PATH, which is kept. One sampler
per source and home at a time (a lock file in the state directory).
"""

from __future__ import annotations

import argparse
import datetime as dt
import fcntl
import json
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

from extractors.filebatch import SourceFileError, land_file, read_flags_given
from extractors.landing import LandingReport
from extractors.records import ParseResult
from extractors.state import source_dir


class SamplerBusyError(SourceFileError):
    """Another live sampler of the same source holds this home."""


class Sampler(Protocol):
    def sample_round(self) -> list[dict[str, Any]]: ...

    def reset_inventory(self) -> None: ...


@dataclass(frozen=True)
class LiveSource:
    name: str
    parse: Callable[[str], ParseResult]
    row_types: Mapping[str, type]


@dataclass(frozen=True)
class LiveOptions:
    interval_seconds: float
    samples: int | None  # None: until interrupted
    flush_every: int  # rounds per landed chunk
    output: Path | None
    host: str


DEFAULT_INTERVAL_SECONDS = 10.0
DEFAULT_FLUSH_EVERY = 60


def add_live_arguments(parser: argparse.ArgumentParser) -> None:
    """`--file PATH...` or `--live` with its options (shared by the sampling sources)."""
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--file", nargs="+", type=Path, metavar="PATH", help="the sampler's JSONL")
    mode.add_argument("--live", action="store_true", help="sample this machine and land it")
    parser.add_argument(
        "--interval",
        type=_positive(float),
        metavar="S",
        help=f"seconds between rounds (default {DEFAULT_INTERVAL_SECONDS:g})",
    )
    parser.add_argument(
        "--samples", type=_positive(int), metavar="N", help="rounds (default: until interrupted)"
    )
    parser.add_argument("--output", type=Path, metavar="PATH", help="also write the JSONL here")
    parser.add_argument(
        "--flush-every",
        type=_positive(int),
        metavar="N",
        help=f"rounds per landed batch (default {DEFAULT_FLUSH_EVERY})",
    )
    parser.add_argument("--host", help="node name to record (default: this host's short name)")


def live_options(args: argparse.Namespace) -> LiveOptions:
    return LiveOptions(
        interval_seconds=args.interval or DEFAULT_INTERVAL_SECONDS,
        samples=args.samples,
        flush_every=args.flush_every or DEFAULT_FLUSH_EVERY,
        output=args.output,
        host=args.host or socket.gethostname().split(".")[0],
    )


def check_file_mode(args: argparse.Namespace) -> None:
    """The live options mean nothing with --file: say so rather than ignore them."""
    given = [
        f"--{name.replace('_', '-')}"
        for name in ("interval", "samples", "output", "flush_every", "host")
        if getattr(args, name) is not None
    ]
    if given:
        raise SourceFileError(f"{', '.join(given)}: only with --live, not with --file")


def check_live_mode(args: argparse.Namespace) -> None:
    """How a file is read means nothing live: say so rather than ignore it."""
    given = read_flags_given(args)
    if given:
        raise SourceFileError(f"{', '.join(given)}: only with --file, not with --live")


def _positive(kind: type) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{text!r} must be > 0")
        return value

    return convert


def run_live(
    home: Path,
    source: LiveSource,
    sampler: Sampler,
    options: LiveOptions,
    progress: TextIO | None = None,
) -> list[LandingReport]:
    """Sample until `options.samples` rounds are done (or an interrupt), landing as it goes;
    progress lines go to `progress` (standard error by default)."""
    progress = progress or sys.stderr
    spool = source_dir(home, source.name) / "spool"
    spool.mkdir(parents=True, exist_ok=True)
    with _exclusive(source_dir(home, source.name) / "sampler.lock", source.name):
        reports = _recover(home, source, spool, progress)
        chunk: Path | None = None
        rounds = chunk_rounds = 0
        due = time.monotonic()
        try:
            while options.samples is None or rounds < options.samples:
                if rounds:  # a fixed cadence; a round that overran delays the next, no burst
                    due = max(due + options.interval_seconds, time.monotonic())
                    time.sleep(max(0.0, due - time.monotonic()))
                if chunk is None:
                    chunk = _new_chunk(spool, options.host)
                    sampler.reset_inventory()
                lines = "".join(
                    json.dumps(r, separators=(",", ":")) + "\n" for r in sampler.sample_round()
                )
                _append(chunk, lines)
                if options.output is not None:
                    _append(options.output, lines)
                rounds += 1
                chunk_rounds += 1
                if chunk_rounds >= options.flush_every:
                    for report in _land_chunk(home, source, chunk):
                        reports.append(report)
                        _say(progress, f"{source.name}: {rounds} rounds sampled; {_brief(report)}")
                    chunk, chunk_rounds = None, 0
        except KeyboardInterrupt:
            _say(progress, f"{source.name}: interrupted after {rounds} rounds; landing them")
        if chunk is not None and chunk_rounds:
            reports.extend(_land_chunk(home, source, chunk))
        elif chunk is not None:
            chunk.unlink()
    return reports


def _recover(home: Path, source: LiveSource, spool: Path, progress: TextIO) -> list[LandingReport]:
    """Land the chunks an earlier run left (it crashed before landing or deleting them)."""
    reports = []
    for path in sorted(spool.glob("*.jsonl")):
        if path.stat().st_size == 0:
            path.unlink()
            continue
        try:
            reports.extend(_land_chunk(home, source, path))
        except SourceFileError as err:
            kept = path.with_suffix(".unlandable")
            path.rename(kept)
            _say(progress, f"{source.name}: cannot land a chunk left by an earlier run: {err}")
            _say(progress, f"{source.name}: kept as {kept}")
    if reports:
        _say(progress, f"{source.name}: landed {len(reports)} chunk(s) left by an earlier run")
    return reports


def _land_chunk(home: Path, source: LiveSource, path: Path) -> list[LandingReport]:
    """The chunk's batch (none when its rounds sampled no record), and the chunk deleted."""
    reports = []
    if path.stat().st_size:
        reports.append(
            land_file(
                home, path, source=source.name, parse=source.parse, row_types=source.row_types
            )
        )
    path.unlink()
    return reports


def _new_chunk(spool: Path, host: str) -> Path:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%f")
    path = spool / f"{host}-{stamp}-{os.getpid()}.jsonl"
    path.touch()
    return path


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()


@contextmanager
def _exclusive(lock_path: Path, source: str) -> Iterator[None]:
    with lock_path.open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SamplerBusyError(
                f"another {source} sampler is running on this home ({lock_path} is locked)"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _brief(report: LandingReport) -> str:
    return (
        f"batch {report.batch_id}: read {report.records_read}, landed {report.records_landed}, "
        f"quarantined {report.records_quarantined}"
    )


def _say(stream: TextIO, message: str) -> None:
    print(message, file=stream, flush=True)
