"""A small PNG reader for screenshot checks (8-bit RGB or RGBA, not interlaced: what headless
Chromium writes), so a test can count a screenshot's colours without an imaging library."""

from __future__ import annotations

import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {2: 3, 6: 4}  # colour type -> bytes per pixel at bit depth 8


def _chunks(data: bytes) -> tuple[tuple[int, int, int, int], bytes]:
    assert data[:8] == SIGNATURE, "not a PNG"
    pos, header, idat = 8, None, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in CHANNELS and interlace == 0, (depth, colour, interlace)
            header = (width, height, CHANNELS[colour], colour)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    assert header is not None, "no IHDR"
    return header, zlib.decompress(b"".join(idat))


def _paeth_or_average(kind: int, line: bytearray, up: bytes, bpp: int) -> None:
    for i in range(len(line)):
        left = line[i - bpp] if i >= bpp else 0
        if kind == 3:
            line[i] = (line[i] + ((left + up[i]) >> 1)) & 0xFF
            continue
        corner = up[i - bpp] if i >= bpp else 0
        p = left + up[i] - corner
        pa, pb, pc = abs(p - left), abs(p - up[i]), abs(p - corner)
        best = left if pa <= pb and pa <= pc else up[i] if pb <= pc else corner
        line[i] = (line[i] + best) & 0xFF


def decode(data: bytes, rows: int | None = None) -> np.ndarray:
    """The pixels (height x width x channels, uint8) of the first `rows` rows (all if None):
    a row's filters read only the rows above it."""
    (width, height, bpp, _), raw = _chunks(data)
    stride = width * bpp
    count = height if rows is None else min(rows, height)
    out = np.zeros((count, stride), dtype=np.uint8)
    previous = np.zeros(stride, dtype=np.uint8)
    for y in range(count):
        kind = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).copy()
        if kind == 1:
            line = np.cumsum(line.reshape(width, bpp), axis=0, dtype=np.uint8).reshape(stride)
        elif kind == 2:
            line = line + previous
        elif kind in (3, 4):
            buffer = bytearray(line.tobytes())
            _paeth_or_average(kind, buffer, previous.tobytes(), bpp)
            line = np.frombuffer(bytes(buffer), np.uint8)
        else:
            assert kind == 0, f"row {y}: filter {kind}"
        out[y] = line
        previous = out[y]
    return out.reshape(count, width, bpp)


def size(data: bytes) -> tuple[int, int]:
    """(width, height) from the header chunk, which comes first."""
    assert data[:8] == SIGNATURE and data[12:16] == b"IHDR", "not a PNG"
    return struct.unpack(">II", data[16:24])


def colours(pixels: np.ndarray) -> int:
    """How many distinct colours the pixels hold."""
    flat = pixels.reshape(-1, pixels.shape[-1])
    return len(np.unique(flat, axis=0))
