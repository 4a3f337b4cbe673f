"""A text evidence file read in bounded pieces, for a parser that streams (sacct text, JSON
Lines, Kubernetes watch events: `land_pieces`): memory holds a piece, never the file. The
same rules as extractors.filebatch reading it whole: the batch id hashes the raw bytes, a
leading byte order mark is not text, an invalid byte refuses the file (`--errors strict`)
or is replaced, named by line and field.

A piece is about `PIECE_BYTES` of whole lines: it ends at a newline byte, so each is decoded
by itself, in UTF-8 and the single-byte encodings where the byte 0x0A is always a newline.
A file in any other encoding (UTF-16, a stateful one) is one piece, as it is read whole.
"""

from __future__ import annotations

import codecs
import encodings
import hashlib
import importlib
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from extractors import progress
from extractors.filebatch import (
    BOM,
    DEFAULT_READ,
    FieldAt,
    ReadOptions,
    SourceFileError,
    invalid_byte,
    is_utf8,
    json_field_at,
)
from extractors.landing import BatchWriter, LandingReport
from extractors.rawstore import batch_hasher
from extractors.records import ParseResult, to_table

PIECE_BYTES = 8 * 2**20
_SINGLE_BYTE = frozenset({"ascii", "latin-1", "iso8859-1"})


@dataclass(frozen=True)
class Survey:
    """What a first pass over a file's bytes says: its batch id, its digest, and where its
    first invalid byte is (line, 0-based column; the byte), if it has one."""

    batch_id: str
    content_sha256: str
    bad_place: tuple[int, int] | None
    bad_byte: int | None


def survey(path: Path, read: ReadOptions, *, source: str, options: str) -> Survey:
    """Hash the file (the batch id of `source` and `options`) and find its first invalid byte.

    The two digests are fed at once (the batch id's in a thread: hashlib releases the GIL),
    and lines are counted only to place an invalid byte, so a valid file costs about one
    digest's time."""
    batch, content = batch_hasher(source, options), hashlib.sha256()
    place, byte, offset = None, None, 0
    with ThreadPoolExecutor(1, thread_name_prefix="survey") as hashing:
        for index, (piece, _) in enumerate(_pieces(path, read.encoding)):
            fed = hashing.submit(batch.update, piece)
            content.update(piece)
            if place is None:
                found = _first_invalid(piece, read.encoding, first=index == 0)
                if found is not None:
                    start, column = found
                    lines = _newlines_before(path, offset) + piece.count(b"\n", 0, start)
                    place, byte = (lines + 1, column), piece[start]
            offset += len(piece)
            fed.result()
    return Survey(batch.hexdigest()[:24], content.hexdigest(), place, byte)


class SurveysAhead:
    """The surveys of the files an ingest lands in turn, each made in a thread while the file
    before it lands (a survey is a full read and digest of the file: on a 2-core machine
    it runs beside the parse instead of between two files).

        with SurveysAhead(paths) as surveys:
            for path in paths:
                found = surveys(path, read, source="slurm", options=options)

    A survey asked for with other arguments than the one made ahead is made then; an error
    of one made ahead (a file that cannot be read) is raised when it is asked for."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = list(paths)
        self.made: dict[tuple[Path, ReadOptions, str, str], Future[Survey]] = {}
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="survey-ahead")

    def __enter__(self) -> SurveysAhead:
        return self

    def __exit__(self, *_: object) -> None:
        for future in self.made.values():
            future.cancel()
        self.pool.shutdown(wait=True)

    def __call__(self, path: Path, read: ReadOptions, *, source: str, options: str) -> Survey:
        key = (path, read, source, options)
        made = self.made.pop(key, None)
        if path in self.paths:
            after = self.paths.index(path) + 1
            if after < len(self.paths):
                ahead = (self.paths[after], read, source, options)
                self.made[ahead] = self.pool.submit(
                    survey, ahead[0], read, source=source, options=options
                )
        if made is not None:
            return made.result()
        return survey(path, read, source=source, options=options)


def _newlines_before(path: Path, offset: int) -> int:
    """The newline bytes among the file's first `offset` bytes."""
    count = 0
    with path.open("rb") as handle:
        while offset > 0 and (block := handle.read(min(offset, PIECE_BYTES))):
            count += block.count(b"\n")
            offset -= len(block)
    return count


def text_pieces(
    path: Path, read: ReadOptions, *, quiet: bool = False
) -> Iterator[tuple[str, bool]]:
    """The file's text piece by piece (whole lines; the last piece flagged), invalid bytes
    replaced by U+FFFD unless `read.errors` is strict (then, UnicodeDecodeError). Each piece
    advances the progress shown, unless `quiet` (a pass that only looks the file over)."""
    errors = "replace" if read.errors == "replace" else "strict"
    for index, (piece, last) in enumerate(_pieces(path, read.encoding)):
        if not quiet:
            progress.advance(done=len(piece))
        codec = _codec(read.encoding, first=index == 0)
        text = piece.decode(codec, errors)
        yield (text.removeprefix(BOM) if index == 0 else text), last


def first_character(path: Path, read: ReadOptions) -> str | None:
    """The file's first character that is not white space (invalid bytes read as U+FFFD),
    after a byte order mark; None when it has none."""
    decoder = codecs.getincrementaldecoder(_codec(read.encoding, first=True))("replace")
    started = False
    try:
        with path.open("rb") as handle:
            while True:
                block = handle.read(4096)
                text = decoder.decode(block, final=not block)
                if text and not started:
                    text, started = text.removeprefix(BOM), True
                if text.strip():
                    return text.lstrip()[0]
                if not block:
                    return None
    except OSError as exc:
        raise SourceFileError(f"{path}: cannot read: {exc.strerror}") from None


def _codec(encoding: str, *, first: bool) -> str:
    if is_utf8(encoding):
        return "utf-8-sig" if first else "utf-8"
    return encoding


def _first_invalid(piece: bytes, encoding: str, *, first: bool) -> tuple[int, int] | None:
    """(offset, column in characters) of the first invalid byte of a piece, if any."""
    utf8 = is_utf8(encoding)
    if utf8 and piece.isascii():
        return None  # ASCII is valid UTF-8 (and far quicker to tell than decoding)
    skip = 3 if first and utf8 and piece.startswith(codecs.BOM_UTF8) else 0
    codec = "utf-8" if utf8 else encoding
    try:
        piece[skip:].decode(codec)
    except UnicodeDecodeError as exc:
        start = skip + exc.start
        line_start = piece.rfind(b"\n", 0, start) + 1
        column = len(piece[line_start:start].decode(codec, "replace").lstrip(BOM))
        return start, column
    return None


def _pieces(path: Path, encoding: str) -> Iterator[tuple[bytes, bool]]:
    """The file's bytes in pieces ending at a newline, the last (what follows the last
    newline, maybe nothing) flagged; one piece when the encoding is not split at newlines."""
    try:
        with path.open("rb") as handle:
            if not _splits_at_newline(encoding):
                yield handle.read(), True
                return
            rest = b""
            while block := handle.read(PIECE_BYTES):
                block = rest + block
                cut = block.rfind(b"\n") + 1
                rest = block[cut:]
                if cut:
                    yield block[:cut], False
            yield rest, True
    except OSError as exc:
        raise SourceFileError(f"{path}: cannot read: {exc.strerror}") from None


def _splits_at_newline(encoding: str) -> bool:
    """Whether every byte 0x0A of text in `encoding` is a newline: UTF-8 and the single-byte
    encodings that map it so (their codec module's decoding table)."""
    name = codecs.lookup(encoding).name
    if is_utf8(encoding) or name in _SINGLE_BYTE:
        return True
    try:
        module = importlib.import_module(f"encodings.{encodings.normalize_encoding(name)}")
    except ImportError:
        return False
    table = getattr(module, "decoding_table", None)
    return isinstance(table, str) and len(table) == 256 and table[0x0A] == "\n"


class PieceParser(Protocol):
    """A parser fed a file's text piece by piece (`land_pieces`).

    `parse(text, line, final)`: the rows and rejects of the records that end in this piece,
    `records_read` counting them, their lines numbered from `line` (the piece's first); a
    record not yet complete may be kept for the next piece (`final`: there is none).
    `end()`: what holds for the whole file once every piece is parsed (the extraction
    instant its records state, warnings); it raises ValueError when the file as a whole is
    not the format (a file error, nothing lands)."""

    def parse(self, text: str, line: int, final: bool) -> ParseResult: ...

    def end(self) -> ParseResult: ...


def land_pieces(
    home: Path,
    path: Path,
    *,
    source: str,
    parser: PieceParser,
    row_types: Mapping[str, type],
    options: str = "",
    read: ReadOptions = DEFAULT_READ,
    field_at: FieldAt = json_field_at,
) -> LandingReport:
    """Land `path` parsed piece by piece: memory holds a piece and its rows, never the file.
    The same batch (id, rows, quarantine, manifest) and the same refusals as reading it whole
    (extractors.filebatch.land_file) for a parser whose records are whole lines or JSON
    objects: an invalid byte names its line and the field of that line that holds it
    (`field_at`, given the line: by default the JSON path of the string)."""
    batch_options = options + read.fingerprint()
    found = survey(path, read, source=source, options=batch_options)
    field = None
    if found.bad_place is not None:
        line, column = found.bad_place
        field = field_at(_line_text(path, read, line), 1, column)
        invalid_byte(str(path), read, found.bad_place, found.bad_byte or 0, field)  # strict: raises
    with surveyed_batch(home, path, found, source, batch_options, row_types, read) as batch:
        if batch.existing is not None:
            return batch.already_landed()
        records, has_text, line = 0, False, 1
        try:
            for text, last in text_pieces(path, read):
                has_text = has_text or bool(text.strip())
                parsed = parser.parse(text, line, last)
                line += text.count("\n")
                records += parsed.records_read
                for table, rows in parsed.tables.items():
                    batch.write(table, to_table(row_types[table], rows))
                batch.reject(parsed.rejected)
            ended = parser.end()
        except ValueError as exc:
            raise SourceFileError(f"{path}: {exc}") from None
        if records == 0:
            what = "nothing but headers or blank lines" if has_text else "the file is empty"
            raise SourceFileError(f"{path}: no records ({what}); nothing landed")
        warnings = list(ended.warnings)
        if found.bad_place is not None:
            warnings.append(
                invalid_byte(str(path), read, found.bad_place, found.bad_byte or 0, field)
            )
        return batch.finish(
            records,
            coverage=ended.coverage,
            stated_extraction=ended.extracted_at,
            stated_basis=ended.extracted_at_basis,
            warnings=warnings,
        )


def surveyed_batch(
    home: Path,
    path: Path,
    found: Survey,
    source: str,
    options: str,
    row_types: Mapping[str, type],
    read: ReadOptions,
) -> BatchWriter:
    """The batch a surveyed file lands as (its id and digest from the survey; `options` the
    batch options, the read's fingerprint included)."""
    return BatchWriter(
        home,
        source=source,
        file=str(path),
        batch_id=found.batch_id,
        content_sha256=found.content_sha256,
        options=options,
        row_types=row_types,
        extracted_at=read.extracted_at,
        covers_from=read.covers_from,
    )


def _line_text(path: Path, read: ReadOptions, number: int) -> str:
    """The text of the file's line `number` (1-based), invalid bytes read as U+FFFD."""
    seen = 0
    for index, (piece, _) in enumerate(_pieces(path, read.encoding)):
        count = piece.count(b"\n")
        if seen + count + (not piece.endswith(b"\n")) >= number:
            text = piece.decode(_codec(read.encoding, first=index == 0), "replace")
            return text.removeprefix(BOM).split("\n")[number - seen - 1]
        seen += count
    return ""


def beginning(path: Path, read: ReadOptions) -> str:
    """The file's first piece of text (whole lines, about PIECE_BYTES; invalid bytes read as
    U+FFFD, a byte order mark dropped): enough to tell its format by."""
    for piece, _ in _pieces(path, read.encoding):
        return piece.decode(_codec(read.encoding, first=True), "replace").removeprefix(BOM)
    return ""
