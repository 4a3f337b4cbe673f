"""Prometheus into the landing zone: saved query_range responses, or a live server.

Live mode asks `/api/v1/query_range` for each query (a metric name or selector) over
`[start, end]` at `step`, in chunks of at most 11,000 points per series (Prometheus answers
HTTP 400 past that). Each chunk of each query lands as one idempotent batch, and only then
is the chunk recorded as covered in `<home>/state/prometheus/<key>.json` (one file per URL,
query and step: `covered`), so a rerun fetches only what is not covered yet and a crash between
landing and the state write re-lands the same bytes as a no-op.

What is asked, and why:
- Raw series by metric name, never `sum by (...)`: counters are summed over vLLM `engine` and
  Prometheus `instance` in staging, after the per-series reset correction (summing first
  hides a reset of one engine behind the others). Every label kept is bounded (GPU, MIG
  instance, pod, model, version, engine, finish reason, target); nothing per request.
- Each selector X is asked as `X and count_over_time(X[step])`: a point is kept only when a
  sample of the series lies in the step that ends at it, so Prometheus's 5-minute lookback
  never repeats a last value past the end of the data or across a gap, and each scraped
  sample is read at most once (at the first step at or after it). Prometheus 2 ranges are
  closed at both ends, so there the window is one millisecond short of the step (samples
  carry millisecond timestamps); Prometheus 3 ranges are left-open and take the full step.
  (`time() - timestamp(X) < step` says the same but costs ~100x: seconds per query.)
- The window ends at most SETTLE_SECONDS before now, so a rerun later picks up scrapes that
  were still in flight instead of treating their minutes as covered.
- The step grid is aligned to whole multiples of the step (start rounded up, end down), so
  reruns and overlapping windows with one step evaluate the same timestamps; adjacent
  chunks start one step apart, so no boundary timestamp is asked twice.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from extractors.filebatch import DEFAULT_READ, ReadOptions, SourceFileError
from extractors.landing import LandingReport
from extractors.prometheus.auth import TOKEN_ENV, Credentials, clean_url, resolve_credentials
from extractors.prometheus.batches import SOURCE, land_response, land_response_file
from extractors.prometheus.exposition import (
    ExpositionStream,
    exposition_field_at,
    is_exposition,
    is_openmetrics,
)
from extractors.prometheus.records import RAW_TABLES
from extractors.state import Cursor, Stream
from extractors.textfile import land_pieces, text_pieces

MAX_POINTS_PER_SERIES = 11_000  # Prometheus's hard limit per series per range query
# Scrapes still in flight may be missing from the last minutes: they are never marked covered.
SETTLE_SECONDS = 120
DEFAULT_QUERIES = (
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
    "DCGM_FI_DEV_GPU_UTIL",
    "DCGM_FI_DEV_FB_USED",
    "DCGM_FI_DEV_POWER_USAGE",
    "vllm:prompt_tokens_total",
    "vllm:generation_tokens_total",
    "vllm:request_success_total",
    "nv_inference_request_success",
    "nv_inference_request_failure",
    "nv_inference_count",
    "nv_inference_request_duration_us",
    "nv_inference_queue_duration_us",
    "nv_inference_compute_infer_duration_us",
)
_STEP = re.compile(r"^(\d+)(s|m|h|d)?$")
_SELECTOR = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^{}]*\})?$")
_STEP_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_EPOCH = dt.datetime(1970, 1, 1)
# The evaluation times landed so far of one URL, query and step (see `covered`): inclusive
# intervals of epoch seconds, stored as ISO 8601 UTC pairs.
COVERED = Cursor(
    source=SOURCE,
    key="covered",
    decode=lambda saved: [(_epoch_of(a), _epoch_of(b)) for a, b in saved],
    encode=lambda intervals: [[_iso(a), _iso(b)] for a, b in intervals],
    remedy="; remove it to fetch the window again",
)


class PrometheusQueryError(SourceFileError):
    """The live server could not be reached or refused a query (the message names both)."""


class _HttpError(PrometheusQueryError):
    """The server answered with an HTTP error status."""


@dataclass(frozen=True)
class Chunk:
    """One range request: evaluation times `start, start + step, ..., end` (epoch seconds)."""

    start: int
    end: int
    step: int

    @property
    def points(self) -> int:
        return (self.end - self.start) // self.step + 1


@dataclass(frozen=True)
class Server:
    """The server as messages name it (`url`, no credentials) and what authenticates to it."""

    url: str
    authorization: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class LiveWindow:
    url: str
    start: dt.datetime
    end: dt.datetime
    step_seconds: int
    max_points: int = MAX_POINTS_PER_SERIES


def ingest_file(
    home: Path,
    path: Path,
    read: ReadOptions = DEFAULT_READ,
    scrape_time: dt.datetime | None = None,
) -> LandingReport:
    """Land a saved `/api/v1/query_range` (or `/api/v1/query`) JSON response, streaming, or
    a saved exposition-format scrape (`.prom`: samples dated `scrape_time` unless they carry
    their own timestamps)."""
    options = "" if scrape_time is None else f"scrape_time={scrape_time.isoformat()}"
    if not _is_exposition_file(path, read):
        return land_response_file(home, path, options=options, read=read)
    return land_pieces(
        home,
        path,
        source=SOURCE,
        parser=ExpositionStream(scrape_time, _is_openmetrics_file(path, read)),
        row_types=RAW_TABLES,
        options=options,
        read=read,
        field_at=exposition_field_at,
    )


def _is_openmetrics_file(path: Path, read: ReadOptions) -> bool:
    """Whether the scrape has a `# EOF` line (read piece by piece: it is the file's last)."""
    try:
        return any(is_openmetrics(text) for text, _ in text_pieces(path, read, quiet=True))
    except UnicodeDecodeError:  # land_pieces refuses the invalid byte, naming it
        return False


def _is_exposition_file(path: Path, read: ReadOptions) -> bool:
    """Whether the file is exposition text rather than a JSON response (`is_exposition` of
    its first characters: an empty file too); an unreadable one is left to the JSON reader
    to refuse."""
    try:
        with path.open("rb") as handle:
            head = handle.read(1 << 16)
    except OSError:
        return False
    return is_exposition(head.decode(read.encoding, "replace").removeprefix("\ufeff"))


def parse_step(text: str) -> int:
    """A step as whole seconds: `60`, `60s`, `5m`, `1h`, `1d`. Raises ValueError otherwise."""
    match = _STEP.match(text.strip())
    if match is None or int(match.group(1)) == 0:
        raise ValueError(f"invalid step {text!r}: use whole seconds such as 60s, 5m or 1h")
    return int(match.group(1)) * _STEP_UNITS[match.group(2) or "s"]


def guarded_query(selector: str, step_seconds: int, *, left_open_ranges: bool) -> str:
    """The selector restricted to steps holding a sample of the series (see the module doc)."""
    window = f"{step_seconds}s" if left_open_ranges else f"{step_seconds * 1000 - 1}ms"
    return f"{selector} and count_over_time({selector}[{window}])"


def is_selector(text: str) -> bool:
    """A metric name with an optional label matcher block: what `guarded_query` can wrap."""
    return _SELECTOR.match(text.strip()) is not None


def plan_chunks(
    start: int,
    end: int,
    step: int,
    *,
    covered: Sequence[tuple[int, int]] = (),
    max_points: int = MAX_POINTS_PER_SERIES,
) -> list[Chunk]:
    """The requests that cover the step grid of `[start, end]` minus `covered` (pure).

    The grid is the multiples of `step` inside `[start, end]`; a grid time inside a covered
    interval `[a, b]` (inclusive, epoch seconds) is skipped; each run of consecutive needed
    grid times is split into chunks of at most `max_points` times.
    """
    if not 1 <= max_points <= MAX_POINTS_PER_SERIES:
        raise ValueError(f"max points must be between 1 and {MAX_POINTS_PER_SERIES}")
    first = -(-start // step) * step
    last = end // step * step
    chunks: list[Chunk] = []
    time = first
    for low, high in sorted(covered):
        if high < time:
            continue
        if low > last:
            break
        _append_run(chunks, time, min(last, low - 1) // step * step, step, max_points)
        time = max(time, (high // step + 1) * step)
    _append_run(chunks, time, last, step, max_points)
    return chunks


def _append_run(chunks: list[Chunk], first: int, last: int, step: int, max_points: int) -> None:
    while first <= last:
        chunk_end = min(last, first + (max_points - 1) * step)
        chunks.append(Chunk(first, chunk_end, step))
        first = chunk_end + step


def ingest_live(
    home: Path,
    window: LiveWindow,
    queries: Sequence[str],
    credentials: Credentials | None = None,
) -> list[LandingReport]:
    """Land every not-yet-covered chunk of every query; progress goes to stderr. Requests
    carry `credentials` (else those embedded in the URL); messages, batches and state name
    the URL without them (extractors.prometheus.auth)."""
    if credentials is None:
        credentials = resolve_credentials(window.url, environ={})
    server = Server(clean_url(window.url), credentials.authorization if credentials else None)
    start, end = _epoch(window.start), _epoch(window.end)
    if end < start:
        raise PrometheusQueryError(f"{server.url}: --end is before --start")
    settled = _epoch(dt.datetime.now(dt.UTC).replace(tzinfo=None)) - SETTLE_SECONDS
    if end > settled:
        _progress(f"--end {_iso(end)} is too recent; querying up to {_iso(settled)}")
        end = settled
    left_open = _major_version(server) >= 3
    reports = []
    for query in queries:
        state = covered(home, server.url, query, window.step_seconds)
        done = state.load() or []
        chunks = plan_chunks(
            start, end, window.step_seconds, covered=done, max_points=window.max_points
        )
        if not chunks:
            why = "landed before" if done else "no whole step in the window"
            _progress(f"{query}: nothing to fetch in {_iso(start)}..{_iso(end)} ({why})")
            continue
        for number, chunk in enumerate(chunks, start=1):
            report = _land_chunk(home, server, query, chunk, left_open)
            state.advance(
                functools.partial(merge_covered, low=chunk.start, high=chunk.end, step=chunk.step)
            )
            _progress(
                f"{query}: chunk {number}/{len(chunks)} {_iso(chunk.start)}..{_iso(chunk.end)} "
                f"({chunk.points} steps): read {report.records_read}, quarantined "
                f"{report.records_quarantined}"
                + (" (already landed)" if report.already_landed else "")
            )
            reports.append(report)
    return reports


def _land_chunk(
    home: Path, server: Server, query: str, chunk: Chunk, left_open: bool
) -> LandingReport:
    extracted_at = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    body = _query_range(server, guarded_query(query, chunk.step, left_open_ranges=left_open), chunk)
    url = server.url
    where = f"{url} query_range {query} {_iso(chunk.start)}..{_iso(chunk.end)} step {chunk.step}s"
    try:
        return land_response(
            home,
            file=where,
            content=body,
            options=(
                f"url={url};query={query};start={chunk.start};end={chunk.end};step={chunk.step}"
            ),
            extracted_at=extracted_at,
        )
    except ValueError as err:
        raise PrometheusQueryError(f"{where}: {err}") from None


def _major_version(server: Server) -> int:
    """Prometheus's major version from /api/v1/status/buildinfo; 2 when it does not say."""
    try:
        body = _request(server, "/api/v1/status/buildinfo", None)
        version = json.loads(body)["data"]["version"]
        return int(str(version).split(".", 1)[0])
    except (_HttpError, ValueError, KeyError, TypeError):
        return 2


def _query_range(server: Server, query: str, chunk: Chunk) -> bytes:
    params = {"query": query, "start": chunk.start, "end": chunk.end, "step": chunk.step}
    return _request(server, "/api/v1/query_range", params, what=repr(query))


def _request(
    server: Server,
    path: str,
    params: dict[str, object] | None,
    *,
    what: str = "",
    timeout: float = 120.0,
) -> bytes:
    """GET (no params) or form POST to the server; errors become PrometheusQueryError. The
    Authorization header is not forwarded on a redirect."""
    url = server.url
    data = urllib.parse.urlencode(params).encode() if params is not None else None
    request = urllib.request.Request(
        f"{url.rstrip('/')}{path}",
        data=data,
        headers={"Content-Type": "application/x-www-form-urlencoded"} if data else {},
    )
    if server.authorization is not None:
        request.add_unredirected_header("Authorization", server.authorization)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.read()
    except urllib.error.HTTPError as err:
        detail = _error_detail(err.read())
        if "too many samples" in detail or "maximum resolution" in detail:
            detail += " (a smaller --max-points asks for fewer points per request)"
        if err.code in (401, 403) and server.authorization:
            detail += " (the server refused the credentials given)"
        elif err.code in (401, 403):
            detail += (
                f" (no credentials given: --bearer-token-file, --basic-auth-file, {TOKEN_ENV})"
            )
        raise _HttpError(f"{url}: HTTP {err.code} for {what or path}: {detail}") from None
    except (urllib.error.URLError, TimeoutError, ConnectionError) as err:
        reason = getattr(err, "reason", err)
        raise PrometheusQueryError(f"{url}: cannot reach Prometheus: {reason}") from None


def _error_detail(body: bytes) -> str:
    try:
        document = json.loads(body)
        return f"{document.get('errorType', 'error')}: {document.get('error', '')}"
    except (ValueError, AttributeError):
        return body[:200].decode("utf-8", "replace")


def covered(home: Path, url: str, query: str, step: int) -> Stream[list[tuple[int, int]]]:
    """`<home>/state/prometheus/<key>.json`, the key a hash of the URL, query and step."""
    key = hashlib.sha256(f"{url}\0{query}\0{step}".encode()).hexdigest()[:24]
    return COVERED.stream(home, key, url=url, query=query, step_seconds=step)


def merge_covered(
    intervals: Sequence[tuple[int, int]] | None, low: int, high: int, step: int
) -> list[tuple[int, int]]:
    """`intervals` with `[low, high]` added; intervals one step apart or less become one."""
    merged: list[tuple[int, int]] = []
    for a, b in sorted([*(intervals or ()), (low, high)]):
        if merged and a <= merged[-1][1] + step:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _epoch(value: dt.datetime) -> int:
    return int((value - _EPOCH).total_seconds())


def _epoch_of(text: str) -> int:
    return _epoch(dt.datetime.fromisoformat(text.removesuffix("Z")))


def _iso(epoch: int) -> str:
    return (_EPOCH + dt.timedelta(seconds=epoch)).isoformat() + "Z"


def _progress(message: str) -> None:
    print(f"prometheus: {message}", file=sys.stderr, flush=True)
