"""Land one evidence file: read it, parse it with the source's pure parser, land the batch.

How a file is read is the user's to say (`ReadOptions`, the `--extracted-at`, `--encoding` and
`--errors` options of every file ingest): the instant it was extracted from its source (a
file's modification time is never evidence of it: a copy changes it), and its text encoding.
A leading byte order mark is not text. An invalid byte refuses the file naming its line and
field (`file:12: field JobName: invalid UTF-8 byte 0xff`), unless `--errors replace` lands it
with U+FFFD in its place (a warning says where); the encoding and error handling are then
part of the batch options, so the batch id differs from a strict read's. A file with no
record lands nothing: it is refused with a one-line message.
"""

from __future__ import annotations

import argparse
import codecs
import datetime as dt
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from extractors.landing import LandingReport, land
from extractors.records import ParseResult
from extractors.timeparse import parse_timestamp

# (text read with U+FFFD in place of invalid bytes, 1-based line, 0-based column) -> the
# field at that place, for a message a user can act on (None: the source cannot tell)
FieldAt = Callable[[str, int, int], str | None]
REPLACEMENT = "\ufffd"
BOM = "\ufeff"


class SourceFileError(ValueError):
    """The file cannot be read as this source at all (the message names the file)."""


@dataclass(frozen=True)
class ReadOptions:
    """How a file is read: when it was extracted (None: its evidence says, or nothing does),
    from when its extraction window ran (`covers_from`, sacct -S: its coverage starts there,
    not at its earliest record) and its text encoding, with `errors` `strict` (refuse an
    invalid byte) or `replace`."""

    extracted_at: dt.datetime | None = None
    covers_from: dt.datetime | None = None
    encoding: str = "utf-8"
    errors: str = "strict"

    def fingerprint(self) -> str:
        """The batch options these make: none at the defaults (a strict UTF-8 read), else
        the encoding and error handling (other text from the same bytes)."""
        if is_utf8(self.encoding) and self.errors == "strict":
            return ""
        return f";encoding={codecs.lookup(self.encoding).name};errors={self.errors}"


DEFAULT_READ = ReadOptions()


def iso_instant(value: str) -> dt.datetime:
    """An argparse type: ISO 8601 text as naive UTC (zone-less text is UTC)."""
    try:
        return parse_timestamp(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not an ISO 8601 time (2026-11-01 or 2026-11-01T06:00:00Z)"
        ) from None


def _encoding(value: str) -> str:
    try:
        codecs.lookup(value)
    except LookupError:
        raise argparse.ArgumentTypeError(f"unknown encoding {value!r}") from None
    return value


def add_read_arguments(parser: argparse.ArgumentParser, *, extracted_at_help: str) -> None:
    """`--extracted-at`, `--encoding` and `--errors`: how `--file` is read."""
    group = parser.add_argument_group("reading --file")
    group.add_argument("--extracted-at", type=iso_instant, metavar="ISO", help=extracted_at_help)
    group.add_argument("--encoding", type=_encoding, help="the files' text encoding (utf-8)")
    group.add_argument(
        "--errors",
        choices=("strict", "replace"),
        help="an invalid byte: refuse the file (strict, the default) or land it as U+FFFD",
    )


READ_FLAGS = ("extracted_at", "encoding", "errors")


def read_options(args: argparse.Namespace) -> ReadOptions:
    return ReadOptions(
        extracted_at=args.extracted_at,
        covers_from=getattr(args, "covers_from", None),  # the sources with a window (slurm)
        encoding=args.encoding or "utf-8",
        errors=args.errors or "strict",
    )


def read_flags_given(args: argparse.Namespace) -> list[str]:
    """The `add_read_arguments` flags given (they mean nothing without --file)."""
    return [f"--{name.replace('_', '-')}" for name in READ_FLAGS if getattr(args, name) is not None]


def land_file(
    home: Path,
    path: Path,
    *,
    source: str,
    parse: Callable[[str], ParseResult],
    row_types: Mapping[str, type],
    options: str = "",
    read: ReadOptions = DEFAULT_READ,
    field_at: FieldAt | None = None,
) -> LandingReport:
    """Read, parse and land `path`; `field_at` names the field at an invalid byte (by
    default the JSON path of the string that holds it)."""
    try:
        content = path.read_bytes()
    except OSError as exc:
        raise SourceFileError(f"{path}: cannot read: {exc.strerror}") from None
    text, replaced = decode_text(content, str(path), read, field_at or json_field_at)
    try:
        result = parse(text)
    except ValueError as exc:
        raise SourceFileError(f"{path}: {exc}") from None
    if result.records_read == 0:
        what = "the file is empty" if not text.strip() else "nothing but headers or blank lines"
        raise SourceFileError(f"{path}: no records ({what}); nothing landed")
    if replaced:
        result.warn(replaced)
    return land(
        home,
        source=source,
        file=str(path),
        content=content,
        options=options + read.fingerprint(),
        result=result,
        row_types=row_types,
        extracted_at=read.extracted_at,
        covers_from=read.covers_from,
    )


def decode_text(
    content: bytes, name: str, read: ReadOptions, field_at: FieldAt
) -> tuple[str, str | None]:
    """The text of `content` without a byte order mark, and a warning when invalid bytes were
    replaced; a strict read of an invalid byte raises SourceFileError naming line and field."""
    codec = "utf-8-sig" if is_utf8(read.encoding) else read.encoding
    try:
        return content.decode(codec).removeprefix(BOM), None
    except UnicodeDecodeError as exc:
        replaced = content.decode(codec, "replace").removeprefix(BOM)
        line = content.count(b"\n", 0, exc.start) + 1
        line_start = content.rfind(b"\n", 0, exc.start) + 1
        column = len(content[line_start : exc.start].decode(codec, "replace").lstrip(BOM))
        field = field_at(replaced, line, column)
        return replaced, invalid_byte(name, read, (line, column), content[exc.start], field)


def invalid_byte(
    name: str, read: ReadOptions, place: tuple[int, int], byte: int, field: str | None
) -> str:
    """The warning that an invalid `byte` at `place` (line, 0-based column) was replaced; a
    strict read raises SourceFileError with the message instead."""
    line, column = place
    where = f"{name}:{line}: " + (f"field {field}" if field else f"column {column + 1}")
    label = "UTF-8" if is_utf8(read.encoding) else read.encoding
    text = f"{where}: invalid {label} byte 0x{byte:02x}"
    if read.errors == "strict":
        raise SourceFileError(
            f"{text} (give --encoding if the file is in another encoding, or "
            "--errors replace to land it with U+FFFD in place of each invalid byte)"
        )
    return f"{text} (and any other) landed as U+FFFD (--errors replace)"


def is_utf8(encoding: str) -> bool:
    return codecs.lookup(encoding).name in ("utf-8", "utf-8-sig")


def json_field_at(text: str, line: int, column: int) -> str | None:
    """The JSON path (`items[3].metadata.name`) of the first string holding U+FFFD, in the
    line (JSON Lines) or else the whole document; None when neither is JSON."""
    candidates = (text.split("\n")[line - 1], text)
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        found = _replaced_path(value, "")
        if found is not None:
            return found or "(document)"
    return None


def _replaced_path(value: object, path: str) -> str | None:
    if isinstance(value, str):
        return path if REPLACEMENT in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            if REPLACEMENT in str(key):
                return child
            found = _replaced_path(item, child)
            if found is not None:
                return found
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = _replaced_path(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None
