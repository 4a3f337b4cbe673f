"""A text evidence file read in bounded pieces, for a parser that streams (sacct text): memory
holds a piece, never the file. The same rules as extractors.filebatch reading it whole: the
batch id hashes the raw bytes, a leading byte order mark is not text, an invalid byte
refuses the file (`--errors strict`) or is replaced, named by line and field.

A piece is about `PIECE_BYTES` of whole lines: it ends at a newline byte, so each is decoded
by itself, in UTF-8 and the single-byte encodings where the byte 0x0A is always a newline.
A file in any other encoding (UTF-16, a stateful one) is one piece, as it is read whole.
"""

from __future__ import annotations

import codecs
import encodings
import hashlib
import importlib
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from extractors import progress
from extractors.filebatch import BOM, ReadOptions, SourceFileError, is_utf8
from extractors.rawstore import batch_hasher

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


def text_pieces(path: Path, read: ReadOptions) -> Iterator[tuple[str, bool]]:
    """The file's text piece by piece (whole lines; the last piece flagged), invalid bytes
    replaced by U+FFFD unless `read.errors` is strict (then, UnicodeDecodeError)."""
    errors = "replace" if read.errors == "replace" else "strict"
    for index, (piece, last) in enumerate(_pieces(path, read.encoding)):
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
