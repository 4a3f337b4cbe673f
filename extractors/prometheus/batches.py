"""A Prometheus query_range response landed as one batch, chunk by chunk, through
extractors.landing.BatchWriter: each chunk's new series, then its points, so memory holds
one chunk and not the response, whatever its size.

A saved file is read twice in blocks: once for its batch id (a hash of its bytes, so landing
it again is a no-op found before any parsing) and its UTF-8 check, once to parse it. A file
in another encoding, or read with `--errors replace`, is decoded whole first (the read
options then change the batch id, as for every file source).
"""

from __future__ import annotations

import codecs
import datetime as dt
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from extractors import progress
from extractors.filebatch import (
    DEFAULT_READ,
    ReadOptions,
    SourceFileError,
    decode_text,
    json_field_at,
)
from extractors.landing import BatchWriter, LandingReport
from extractors.prometheus.parse import parse_query_range
from extractors.prometheus.records import (
    POINTS_TABLE,
    RAW_TABLES,
    SERIES_TABLE,
    PrometheusSeries,
)
from extractors.rawstore import batch_identity
from extractors.records import to_table

SOURCE = "prometheus"
BLOCK_BYTES = 1 << 22


def land_response_file(
    home: Path, path: Path, *, options: str, read: ReadOptions = DEFAULT_READ
) -> LandingReport:
    """Land a saved `/api/v1/query_range` (or `/api/v1/query`) response file."""
    options += read.fingerprint()
    identity = batch_identity(SOURCE, options, _checked_blocks(path, read))
    if read.fingerprint():
        text, replaced = decode_text(_read(path), str(path), read, json_field_at)
        content = text.encode("utf-8")

        def blocks() -> Iterable[bytes]:
            return [content]

        warnings = [replaced] if replaced else []
    else:

        def blocks() -> Iterable[bytes]:
            return _blocks(path)

        warnings = []
    try:
        return _land(
            home,
            file=str(path),
            identity=identity,
            options=options,
            blocks=blocks,
            extracted_at=read.extracted_at,
            warnings=warnings,
            require_records=True,
        )
    except SourceFileError:
        raise
    except ValueError as exc:
        raise SourceFileError(f"{path}: {exc}") from None


def land_response(
    home: Path, *, file: str, content: bytes, options: str, extracted_at: dt.datetime
) -> LandingReport:
    """Land a response body held in memory (a live query's chunk); an empty result lands an
    empty batch."""
    return _land(
        home,
        file=file,
        identity=batch_identity(SOURCE, options, [content]),
        options=options,
        blocks=lambda: [content],
        extracted_at=extracted_at,
        warnings=[],
        require_records=False,
    )


def _land(
    home: Path,
    *,
    file: str,
    identity: tuple[str, str],
    options: str,
    blocks: Callable[[], Iterable[bytes]],
    extracted_at: dt.datetime | None,
    warnings: list[str],
    require_records: bool,
) -> LandingReport:
    batch_id, content_sha256 = identity
    with BatchWriter(
        home,
        source=SOURCE,
        file=file,
        batch_id=batch_id,
        content_sha256=content_sha256,
        options=options,
        row_types=RAW_TABLES,
        extracted_at=extracted_at,
    ) as batch:
        if batch.existing is not None:
            return batch.already_landed()
        records_read = 0
        for chunk in parse_query_range(blocks()):
            if chunk.series:
                batch.write(SERIES_TABLE, to_table(PrometheusSeries, chunk.series))
            if chunk.points.num_rows:
                batch.write(POINTS_TABLE, chunk.points)
            batch.reject(chunk.rejected)
            records_read += chunk.records_read
        if require_records and records_read == 0:
            raise ValueError("no records (the response has no points); nothing landed")
        return batch.finish(records_read, warnings=warnings)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SourceFileError(f"{path}: cannot read: {exc.strerror}") from None


def _blocks(path: Path) -> Iterator[bytes]:
    try:
        with path.open("rb") as handle:
            while block := handle.read(BLOCK_BYTES):
                progress.advance(done=len(block))
                yield block
    except OSError as exc:
        raise SourceFileError(f"{path}: cannot read: {exc.strerror}") from None


def _checked_blocks(path: Path, read: ReadOptions) -> Iterator[bytes]:
    """The file's blocks; under a strict UTF-8 read an invalid byte refuses the file as
    `decode_text` words it (naming line and field)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    for block in _blocks(path):
        if not read.fingerprint():
            try:
                decoder.decode(block)
            except UnicodeDecodeError:
                decode_text(_read(path), str(path), read, json_field_at)
        yield block
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        decode_text(_read(path), str(path), read, json_field_at)
